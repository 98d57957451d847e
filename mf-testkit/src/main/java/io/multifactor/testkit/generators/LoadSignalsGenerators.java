package io.multifactor.testkit.generators;

import io.multifactor.testkit.reference.ReferenceDecision;
import io.multifactor.testkit.reference.ReferenceModel;
import io.multifactor.testkit.reference.ReferenceObservation;
import io.multifactor.testkit.reference.ReferenceRequest;
import io.multifactor.testkit.reference.LoadSignalsCase;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Generators of selection problems with the load signals ({@link LoadSignalsCase}), over the seed problems of
 * {@link ScoringGenerators}: per candidate its in-flight tokens (0, a count shared by all, a multiple of its in-flight
 * requests, or a size from a few tokens to hundreds of thousands), {@code load_metric: tokens} or {@code requests},
 * {@code max_inflight_tokens} set to a value some candidates exceed, or off; per candidate a queue (a small count, the same for all, or missing) and a KV-cache use
 * (0..1, shared or missing), stale candidates (only among those with neither signal, as the engine publishes them),
 * queue and KV-cache weights (0, a generated weight, or negative), and the two ceilings set to a value some candidates
 * exceed, or off.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class LoadSignalsGenerators
{
    /** In-flight token counts: a few, thousands, and up to a large server's 400,000. */
    private static final Gen<Long> TOKENS = longs().between(0L, 400_000L);

    private LoadSignalsGenerators()
    {
    }

    /** @return problems with the load signals, every edge case above included. */
    public static Gen<LoadSignalsCase> cases()
    {
        final Gen<ScoringCase> bases = ScoringGenerators.cases();
        final Gen<Integer> percent = integers().between(0, 99);
        final Gen<Integer> queues = integers().between(0, 40);
        final Gen<Double> fractions = doubles().between(0.0, 1.0);
        final Gen<Double> weights = ScoringGenerators.weights();
        return in ->
        {
            final ScoringCase base = bases.generate(in);
            final Map<String, Double> queue = new HashMap<>();
            final Map<String, Double> kv = new HashMap<>();
            final Set<String> stale = new HashSet<>();
            final boolean queueShared = percent.generate(in) < 15;
            final boolean kvShared = percent.generate(in) < 15;
            final double sharedQueue = queues.generate(in);
            final double sharedKv = fractions.generate(in);
            final int missingPercent = percent.generate(in) < 10 ? 100 : 25;
            final List<String> names = new ArrayList<>();
            for (final ReferenceModel model : base.decision().candidates())
            {
                names.add(model.name());
                if (percent.generate(in) >= missingPercent)
                {
                    queue.put(model.name(), queueShared ? sharedQueue : (double)queues.generate(in));
                }
                if (percent.generate(in) >= missingPercent)
                {
                    kv.put(model.name(), kvShared ? sharedKv : fractions.generate(in));
                }
                if (!queue.containsKey(model.name()) && !kv.containsKey(model.name()) && percent.generate(in) < 50)
                {
                    stale.add(model.name());
                }
            }
            final int weightMode = percent.generate(in);
            final double queueWeight = weightMode < 20 ? 0.0 : weightMode < 25 ? -1.0 : weights.generate(in);
            final double kvWeight = percent.generate(in) < 20 ? 0.0 : weights.generate(in);
            long maxQueue = 0L;
            if (percent.generate(in) < 40 && !queue.isEmpty())
            {
                maxQueue = Math.max(1L, queue.get(pick(in, percent, names, queue)).longValue());
            }
            double maxKv = 0.0;
            if (percent.generate(in) < 30 && !kv.isEmpty())
            {
                maxKv = Math.max(0.01, kv.get(pick(in, percent, names, kv)));
            }
            final boolean saturated = percent.generate(in) < 50;
            final ReferenceRequest request = withTokens(in, percent, base.decision(), base.request());
            final boolean tokenLoad = percent.generate(in) < 50;
            long maxTokens = 0L;
            if (percent.generate(in) < 40)
            {
                final String name = names.get(percent.generate(in) % names.size());
                maxTokens = Math.max(1L, request.observation(name).inflightTokens());
            }
            return new LoadSignalsCase(base.decision(), request, tokenLoad, maxTokens, queueWeight, kvWeight, maxQueue,
                maxKv, saturated, queue, kv, stale);
        };
    }

    /**
     * @return the request with every candidate's in-flight tokens set: all 0 now and then, else per candidate a count
     *     shared by all, a multiple of its in-flight requests, 0, or a size up to 400,000.
     */
    private static ReferenceRequest withTokens(final RandomnessSource in, final Gen<Integer> percent,
        final ReferenceDecision decision, final ReferenceRequest request)
    {
        final int mode = percent.generate(in);
        final long shared = TOKENS.generate(in);
        final long perRequest = 1 + percent.generate(in) * 100L;
        final Map<String, ReferenceObservation> observations = new HashMap<>(request.observations());
        for (final ReferenceModel model : decision.candidates())
        {
            final ReferenceObservation observation = request.observation(model.name());
            final int kind = percent.generate(in);
            final long tokens;
            if (mode < 10)
            {
                tokens = 0L;
            }
            else if (kind < 15)
            {
                tokens = shared;
            }
            else if (kind < 35)
            {
                // Saturating: a count of many requests times many tokens still fits a long.
                tokens = Math.min(observation.inflight(), Long.MAX_VALUE / perRequest) * perRequest;
            }
            else if (kind < 45)
            {
                tokens = 0L;
            }
            else
            {
                tokens = TOKENS.generate(in);
            }
            observations.put(model.name(), observation.withInflightTokens(tokens));
        }
        return new ReferenceRequest(observations, request.excluded(), request.promptTokens(), request.maxOutputTokens());
    }

    private static String pick(final RandomnessSource in, final Gen<Integer> percent,
        final List<String> names, final Map<String, Double> present)
    {
        final List<String> have = new ArrayList<>();
        for (final String name : names)
        {
            if (present.containsKey(name))
            {
                have.add(name);
            }
        }
        return have.get(percent.generate(in) % have.size());
    }
}
