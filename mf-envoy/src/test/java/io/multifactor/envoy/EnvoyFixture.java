package io.multifactor.envoy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.multifactor.config.ConfigLoader;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.EngineHost;
import org.agrona.concurrent.NanoClock;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A running ext_proc service on a free loopback port, with the configuration its tests share, and an Envoy for it. */
final class EnvoyFixture implements AutoCloseable
{
    static final String CONFIG = String.join("\n",
        "models:",
        "  - name: premium-model",
        "    quality_score: 0.9",
        "    pricing: {prompt_per_1m: 10.0, completion_per_1m: 30.0}",
        "    provider_model_id: acme/premium-v2",
        "    backend_refs:",
        "      - endpoint: 127.0.0.1:9001",
        "  - name: economy-model",
        "    quality_score: 0.6",
        "    pricing: {prompt_per_1m: 0.5, completion_per_1m: 1.5}",
        "decisions:",
        "  - name: quality",
        "    modelRefs:",
        "      - model: premium-model",
        "      - model: economy-model",
        "    algorithm:",
        "      type: multi_factor",
        "      multi_factor:",
        "        weights: {quality: 1.0}",
        "  - name: cheap",
        "    modelRefs:",
        "      - model: economy-model",
        "  - name: unreachable",
        "    modelRefs:",
        "      - model: premium-model",
        "    algorithm:",
        "      type: multi_factor",
        "      multi_factor:",
        "        slo: {min_quality: 0.95}",
        "        on_no_candidates: fail",
        "");

    final Path config;
    final ExtProcApp app;
    final FakeEnvoy envoy;
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    EnvoyFixture(final Path dir, final EnvoyMode mode) throws Exception
    {
        this(dir, mode, CONFIG);
    }

    EnvoyFixture(final Path dir, final EnvoyMode mode, final String yaml) throws Exception
    {
        this(dir, mode, yaml, null);
    }

    /** With the engine on {@code clockOrNull} (a test's manual clock), or the system's when null. */
    EnvoyFixture(final Path dir, final EnvoyMode mode, final String yaml, final NanoClock clockOrNull) throws Exception
    {
        config = dir.resolve("router.yaml");
        Files.writeString(config, yaml, StandardCharsets.UTF_8);
        final SocketAddress address = new InetSocketAddress("127.0.0.1", 0);
        app = clockOrNull == null ? ExtProcApp.start(config, mode, address, 2_000, registry, null) :
            ExtProcApp.start(EngineHost.start(ConfigLoader.load(config, null, null,
                MultiFactorEngine.DEFAULT_COUNTER_CAPACITY), config, null, null, clockOrNull), mode, address, 2_000,
                registry, null);
        envoy = new FakeEnvoy(app.port());
    }

    MultiFactorEngine engine()
    {
        return app.host().engine();
    }

    long inflight(final String model)
    {
        return engine().inflight(engine().requireModelId(model));
    }

    /** Polls until every model has nothing in flight, or fails after the deadline. */
    void awaitNothingInFlight() throws InterruptedException
    {
        final long deadline = System.nanoTime() + FakeEnvoy.TIMEOUT_S * 1_000_000_000L;
        while (true)
        {
            final long premium = inflight("premium-model");
            final long economy = inflight("economy-model");
            if (premium == 0 && economy == 0)
            {
                return;
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("still in flight: premium-model " + premium + ", economy-model " + economy);
            }
            Thread.sleep(5);
        }
    }

    @Override
    public void close()
    {
        envoy.close();
        app.close();
    }
}
