package io.multifactor.testkit.reference;

import io.multifactor.api.InflightTracker;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * Token load against a plain model of the leases: on random sequences of begin (with a weight, or without, which
 * weighs {@code default_request_tokens}), end (of any lease ever begun, again or after the sweep), second ends, and
 * time passing past {@code inflight_max_age} with a refresh (the sweep), every model's in-flight tokens equal the sum
 * of the weights of its live leases after every step, and return to exactly 0 once everything has ended or been swept.
 */
class TokenLoadPropertiesTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long DEFAULT_TOKENS = 333;
    private static final Plans PLANS = new PlansBuilder().model("a", 0.5, 1.0).model("b", 0.5, 1.0)
        .decision("d").candidates("a", "b").add().build();

    /** One lease of the plain model. Not threadsafe: one test thread. */
    private static final class Lease
    {
        final long id;
        final int model;
        final long weight;
        boolean live = true;

        Lease(final long id, final int model, final long weight)
        {
            this.id = id;
            this.model = model;
            this.weight = weight;
        }
    }

    @Test
    void shouldKeepTokensEqualToTheLiveWeightsAndReturnToZero()
    {
        final long[] steps = new long[2];
        qt().withFixedSeed(29L).withExamples(200)
            .forAll(lists().of(integers().between(0, 99)).ofSizeBetween(1, 80), integers().between(0, 1_000_000))
            .checkAssert((ops, salt) ->
            {
                final CachedNanoClock clock = new CachedNanoClock();
                clock.update(1_000 * SECOND_NS);
                final SignalSettings settings = new SignalSettings(60 * SECOND_NS, SECOND_NS, 10 * SECOND_NS,
                    LatencyEstimatorType.WINDOW, SignalSettings.DEFAULT_EWMA_DECAY_NS, DEFAULT_TOKENS);
                try (MultiFactorEngine engine =
                    MultiFactorEngine.builder(PLANS).clock(clock).settings(settings).leaseCapacity(256).build())
                {
                    final List<Lease> leases = new ArrayList<>();
                    for (int k = 0; k < ops.size(); k++)
                    {
                        final int op = ops.get(k);
                        final int model = (op + salt) & 1;
                        if (op < 40)
                        {
                            final long weight = op < 10 ? DEFAULT_TOKENS : (op * 7919L + salt) % 20_000;
                            final long id = op < 10 ? engine.begin(model) : engine.begin(model, weight);
                            assertThat(id).isNotEqualTo(InflightTracker.NO_LEASE);
                            leases.add(new Lease(id, model, weight));
                        }
                        else if (op < 85 && !leases.isEmpty())
                        {
                            final Lease lease = leases.get((op * 31 + salt) % leases.size());
                            final boolean ended = engine.end(lease.id);
                            assertThat(ended).as("an end counts out exactly the live leases").isEqualTo(lease.live);
                            lease.live = false;
                        }
                        else
                        {
                            // Past the max age, epoch by epoch: the sweep reclaims every lease begun before now
                            // (a lease goes once the epoch after its own began more than the max age ago).
                            for (int r = 0; r < 3; r++)
                            {
                                clock.advance(11 * SECOND_NS + (op % 3) * SECOND_NS);
                                engine.refreshNow();
                            }
                            for (final Lease lease : leases)
                            {
                                if (lease.live && engine.end(lease.id))
                                {
                                    throw new AssertionError("a lease older than the max age survived the sweeps");
                                }
                                lease.live = false;
                            }
                        }
                        assertTokens(engine, leases);
                        steps[0]++;
                    }
                    for (final Lease lease : leases)
                    {
                        if (lease.live)
                        {
                            assertThat(engine.end(lease.id)).isTrue();
                            lease.live = false;
                        }
                    }
                    assertThat(engine.inflightTokens(0)).isZero();
                    assertThat(engine.inflightTokens(1)).isZero();
                    assertThat(engine.inflight(0) + engine.inflight(1)).isZero();
                    steps[1]++;
                }
            });
        System.out.println("TokenLoadPropertiesTest: " + steps[1] + " random sequences, " + steps[0] + " steps, tokens " +
            "equal to the live weights after each and 0 at the end");
    }

    private static void assertTokens(final MultiFactorEngine engine, final List<Lease> leases)
    {
        final long[] expected = new long[2];
        for (final Lease lease : leases)
        {
            if (lease.live)
            {
                expected[lease.model] += lease.weight;
            }
        }
        assertThat(engine.inflightTokens(0)).isEqualTo(expected[0]);
        assertThat(engine.inflightTokens(1)).isEqualTo(expected[1]);
    }
}
