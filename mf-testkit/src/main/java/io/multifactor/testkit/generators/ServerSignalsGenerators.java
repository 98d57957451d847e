package io.multifactor.testkit.generators;

import io.multifactor.testkit.reference.ReferenceModel;
import io.multifactor.testkit.reference.ServerSignalsCase;
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

/**
 * Generators of selection problems with the model-server signals ({@link ServerSignalsCase}), over the seed problems
 * of {@link ScoringGenerators}: per candidate a queue (a small count, the same for all, or missing) and a KV-cache use
 * (0..1, shared or missing), stale candidates (only among those with neither signal, as the engine publishes them),
 * queue and KV-cache weights (0, a generated weight, or negative), and the two ceilings set to a value some candidates
 * exceed, or off.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ServerSignalsGenerators
{
    private ServerSignalsGenerators()
    {
    }

    /** @return problems with the server signals, every edge case above included. */
    public static Gen<ServerSignalsCase> cases()
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
            return new ServerSignalsCase(base.decision(), base.request(), queueWeight, kvWeight, maxQueue, maxKv, saturated, queue, kv, stale);
        };
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
