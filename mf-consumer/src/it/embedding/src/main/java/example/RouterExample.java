package example;

import io.multifactor.api.Exclusions;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.api.Selection;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;

import java.nio.file.Path;

/** Picks a model for requests of the decision quality_answers, before and after slow-strong turns slow. */
public final class RouterExample
{
    public static void main(final String[] args) throws InvalidConfigurationException
    {
        // Parse, validate (every problem at once, located) and compile the YAML into plans.
        final LoadedConfig config = ConfigLoader.load(Path.of(args[0]));
        try (MultiFactorEngine engine = MultiFactorEngine.builder(config.plans())
            .settings(config.signalSettings())
            .build())
        {
            // Once, at startup: names to handles. A name the file lacks fails here, naming the nearest known one.
            final int decision = engine.requireDecisionId("quality_answers");
            final int slowStrong = engine.requireModelId("slow-strong");
            // Per thread: a reusable result and exclusion set.
            final Selection selection = new Selection();
            final Exclusions exclusions = new Exclusions();

            // Per request: select (no allocation, no lock), count the request in flight, feed its latencies back.
            engine.select(decision, exclusions, selection);
            final int model = selection.selectedModel();
            System.out.println("first request -> " + engine.plans().modelName(model));
            final long lease = engine.begin(model);
            try
            {
                // ... send the request to the model, then:
                engine.recordTtftMs(model, 310.0);  // time to first token, ms
                engine.recordTpotMs(model, 42.0);   // time per output token, ms
            }
            finally
            {
                engine.end(lease);
            }

            // slow-strong turns slow: its p95 TTFT (2 s) breaks the decision's 800 ms ceiling.
            for (int i = 0; i < 20; i++)
            {
                engine.recordTtftMs(slowStrong, 2_000.0);
            }
            engine.refreshNow();  // in a router, the refresh agent does this every latency_refresh (see "Embedding")
            engine.select(decision, exclusions, selection);
            System.out.println("after slow answers -> " + engine.plans().modelName(selection.selectedModel()));
        }
    }
}
