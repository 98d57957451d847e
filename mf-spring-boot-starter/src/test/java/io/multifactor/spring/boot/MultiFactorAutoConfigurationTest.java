package io.multifactor.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.EngineHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MultiFactorAutoConfigurationTest
{
    static final String CONFIG = String.join("\n",
        "models:",
        "  - name: a",
        "    quality_score: 0.9",
        "    provider_model_id: acme/a-7b",
        "    backend_refs: [{endpoint: 127.0.0.1:8001}]",
        "  - name: b",
        "    quality_score: 0.5",
        "    backend_refs: [{endpoint: 127.0.0.1:8002}]",
        "decisions:",
        "  - name: d",
        "    modelRefs: [{model: a}, {model: b}]",
        "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}",
        "");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MultiFactorAutoConfiguration.class));

    @TempDir
    Path dir;

    @Test
    void shouldStartNothingWithoutTheProperty()
    {
        runner.run(context ->
        {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(EngineHost.class);
            assertThat(context).doesNotHaveBean(MultiFactorEngine.class);
            assertThat(context).doesNotHaveBean(MultiFactorHealthIndicator.class);
        });
    }

    @Test
    void shouldStartTheEngineFromAFileExposeItsMetersAndHealthAndStopItWithTheContext() throws Exception
    {
        final Path file = dir.resolve("router.yaml");
        Files.writeString(file, CONFIG);
        final EngineHost[] seen = new EngineHost[1];
        runner.withPropertyValues("multifactor.config=" + file)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .run(context ->
            {
                assertThat(context).hasNotFailed();
                final MultiFactorEngine engine = context.getBean(MultiFactorEngine.class);
                final EngineHost host = context.getBean(EngineHost.class);
                seen[0] = host;
                assertThat(host.engine()).isSameAs(engine);
                assertThat(engine.decisionId("d")).isNotNegative();
                assertThat(host.providerModelId("a")).isEqualTo("acme/a-7b");
                assertThat(host.providerModelId("b")).isEqualTo("b");
                final MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.find("mf.inflight").tag("model", "a").gauge()).isNotNull();
                final Health health = context.getBean(MultiFactorHealthIndicator.class).health();
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                assertThat(health.getDetails()).containsEntry("configurationGeneration", 1L)
                    .containsEntry("refreshAgentAlive", true).doesNotContainKey("fleetConnected");
            });
        assertThat(seen[0].refreshAgentAlive()).as("closed with the context").isFalse();
    }

    @Test
    void shouldReloadTheFileWhenItChangesAndKeepThePlansWhenTheNewFileIsRefused() throws Exception
    {
        final Path file = dir.resolve("router.yaml");
        Files.writeString(file, CONFIG);
        runner.withPropertyValues("multifactor.config=file:" + file).run(context ->
        {
            final MultiFactorEngine engine = context.getBean(MultiFactorEngine.class);
            final MultiFactorReloads reloads = context.getBean(MultiFactorReloads.class);
            Files.writeString(file, CONFIG.replace("provider_model_id: acme/a-7b", "provider_model_id: acme/a-8b"));
            poll(() -> engine.reloadsApplied() == 1 && reloads.last() != null);
            assertThat(context.getBean(EngineHost.class).providerModelId("a")).isEqualTo("acme/a-8b");
            assertThat(reloads.last().applied()).isTrue();
            Files.writeString(file, CONFIG.replace("quality_score: 0.9", "quality_score: lots"));
            poll(() -> engine.reloadsRefused() == 1 && reloads.last() != null && !reloads.last().applied());
            assertThat(reloads.last().applied()).isFalse();
            assertThat(engine.decisionId("d")).as("the running plans stay").isNotNegative();
            final Health health = context.getBean(MultiFactorHealthIndicator.class).health();
            assertThat(health.getDetails()).containsEntry("configurationGeneration", 2L)
                .containsEntry("reloadsRefused", 1L);
            assertThat((String)health.getDetails().get("lastReload")).startsWith("refused").contains("router.yaml:3:");
        });
    }

    @Test
    void shouldFailStartUpNamingTheFileAndLineOfABadConfiguration() throws Exception
    {
        final Path file = dir.resolve("bad-router.yaml");
        Files.writeString(file, CONFIG.replace("    quality_score: 0.5\n", "    quality_score: 0.5\n    qualty: 1\n"));
        runner.withPropertyValues("multifactor.config=" + file).run(context ->
        {
            assertThat(context).hasFailed();
            Throwable root = context.getStartupFailure();
            while (root.getCause() != null && !(root instanceof IllegalStateException &&
                root.getMessage().startsWith("multifactor.config")))
            {
                root = root.getCause();
            }
            assertThat(root.getMessage()).contains("multifactor.config " + file + " is not valid")
                .contains("bad-router.yaml:8:").contains("qualty");
        });
    }

    @Test
    void shouldLoadAClasspathResource()
    {
        runner.withPropertyValues("multifactor.config=classpath:router-on-classpath.yaml", "multifactor.decision=d")
            .run(context ->
            {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(MultiFactorEngine.class).decisionId("d")).isNotNegative();
                assertThat(context.getBean(MultiFactorProperties.class).decision()).isEqualTo("d");
                assertThat(context.getBean(MultiFactorProperties.class).maxAttempts()).isEqualTo(2);
            });
    }

    @Test
    void shouldFailStartUpForAMissingClasspathResource()
    {
        runner.withPropertyValues("multifactor.config=classpath:nowhere.yaml").run(context ->
        {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("classpath:nowhere.yaml");
        });
    }

    static void poll(final java.util.function.BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean())
        {
            assertThat(System.nanoTime()).as("timed out").isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
