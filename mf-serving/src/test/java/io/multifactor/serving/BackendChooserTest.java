package io.multifactor.serving;

import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class BackendChooserTest
{
    @Test
    void shouldSplitPicksByWeightAndCarryTheProviderModelId()
    {
        final LoadedConfig loaded = Engines.load(Engines.TWO_MODELS);
        final BackendChooser chooser = BackendChooser.of(loaded, Map.of("B_KEY", "sk-test"));
        final int a = loaded.plans().modelId("a");
        int first = 0;
        for (int i = 0; i < 1_000; i++)
        {
            final Backend backend = chooser.choose(a);
            assertThat(backend.providerModelId()).isEqualTo("acme/a-7b");
            if (backend.name().equals("a1"))
            {
                first++;
            }
            // Any 100 consecutive picks are already close to 80/20 (low discrepancy, not a random draw).
            if (i == 99)
            {
                assertThat(first).isBetween(78, 82);
            }
        }
        assertThat(first).isBetween(795, 805);
        final Backend b = chooser.choose(loaded.plans().modelId("b"));
        assertThat(b.https()).isTrue();
        assertThat(b.port()).isEqualTo(443);
        assertThat(b.basePath()).isEqualTo("/v1");
        assertThat(b.authorization()).isEqualTo("Bearer sk-test");
        assertThat(b.providerModelId()).isEqualTo("b");
        assertThat(chooser.problems()).isEmpty();
        assertThat(chooser.choose(99)).isNull();
        assertThat(chooser.choose(-1)).isNull();
    }

    @Test
    void shouldSayWhatIsUnusable()
    {
        final LoadedConfig loaded = Engines.load(Engines.TWO_MODELS.replace(
            "    backend_refs:\n      - {name: a1, endpoint: 127.0.0.1:8001, weight: 80}\n" +
                "      - {name: a2, endpoint: 127.0.0.1:8002, weight: 20}\n", ""));
        final BackendChooser chooser = BackendChooser.of(loaded, Map.of());
        assertThat(chooser.problems()).containsExactly(
            "model a has no backend_refs: its requests fail (502)",
            "model b, backend b1: api_key_env B_KEY is not set: requests go without Authorization");
        assertThat(chooser.choose(loaded.plans().modelId("a"))).isNull();
        assertThat(chooser.choose(loaded.plans().modelId("b")).authorization()).isNull();
    }

    @Test
    void withServerSignalsShouldSendToTheFreshBackendWithTheFewestWaiting()
    {
        final LoadedConfig loaded = Engines.load(Engines.TWO_MODELS.replace("    provider_model_id: acme/a-7b\n",
            "    provider_model_id: acme/a-7b\n    server: vllm\n") +
            "signals:\n  server_metrics: {every: 500ms, stale_after: 2s}\n");
        final CachedNanoClock clock = new CachedNanoClock();
        clock.update(TimeUnit.SECONDS.toNanos(100));
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).clock(clock)
            .serverMetrics(loaded.serverMetrics(), loaded.serverBackends()).build())
        {
            final BackendChooser chooser = BackendChooser.following(loaded, engine);
            final int a = loaded.plans().modelId("a");
            // No answer yet: the weighted split (80/20).
            assertThat(names(chooser, a, 100).get("a1")).isBetween(78, 82);
            engine.reportServerLoad(a, "http://127.0.0.1:8001", 5, Double.NaN, 0.5);
            engine.reportServerLoad(a, "http://127.0.0.1:8002", 1, Double.NaN, 0.5);
            assertThat(names(chooser, a, 100)).containsExactly(Map.entry("a2", 100));
            // Equal queues: the weighted split again.
            engine.reportServerLoad(a, "http://127.0.0.1:8002", 5, Double.NaN, 0.5);
            assertThat(names(chooser, a, 100).get("a1")).isBetween(78, 82);
            // a1 fresh with fewer waiting, a2's answer gone stale: a1.
            clock.update(clock.nanoTime() + TimeUnit.SECONDS.toNanos(1));
            engine.reportServerLoad(a, "http://127.0.0.1:8001", 0, Double.NaN, 0.5);
            clock.update(clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_500));
            assertThat(names(chooser, a, 100)).containsExactly(Map.entry("a1", 100));
            // The unscraped model keeps its one backend.
            assertThat(chooser.choose(loaded.plans().modelId("b")).name()).isEqualTo("b1");
        }
    }

    private static Map<String, Integer> names(final BackendChooser chooser, final int modelId, final int picks)
    {
        final Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < picks; i++)
        {
            counts.merge(chooser.choose(modelId).name(), 1, Integer::sum);
        }
        return counts;
    }
}
