package io.multifactor.micrometer;

import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SessionPolicy;
import io.multifactor.kernel.reliability.EjectionPolicy;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class MultiFactorMetricsTest
{
    private final CachedNanoClock clock = new CachedNanoClock();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
        registry.close();
    }

    private static Plans plans()
    {
        return new PlansBuilder()
            .model("premium", 0.9, 10.0)
            .model("economy", 0.1, 1.0)
            .decision("chat").candidates("premium", "economy").weights(1.0, 0.0, 0.0, 0.0).slo(200.0, 0.0, 0.0, 0).add()
            .build();
    }

    private MultiFactorEngine engine()
    {
        clock.update(TimeUnit.SECONDS.toNanos(1_000));
        engine = MultiFactorEngine.builder(plans()).clock(clock).build();
        return engine;
    }

    @Test
    void shouldExposeTheSectionNineNamesAfterRealSelections()
    {
        final MultiFactorEngine engine = engine();
        new MultiFactorMetrics(engine).bindTo(registry);
        final int chat = engine.decisionId("chat");
        final int premium = engine.modelId("premium");
        final int economy = engine.modelId("economy");
        final Selection out = new Selection();
        for (int i = 0; i < 3; i++)
        {
            engine.select(chat, null, out);
        }
        engine.select(chat, new Exclusions().add(premium), out);
        engine.select(chat, new Exclusions().add(premium).add(economy), out);
        engine.recordTpotMs(premium, 250.0);
        engine.recordTpotMs(economy, 42.0);
        engine.recordTtftMs(economy, -1.0);
        engine.refreshNow();
        engine.select(chat, null, out);
        final long lease = engine.begin(economy);
        final long weighted = engine.begin(premium, 2_500);
        engine.fleetCounters().exchangeDone();
        engine.fleetCounters().remoteReplicas(2);
        engine.refreshNow();

        final String text = registry.scrape();
        assertThat(text).contains(
            "mf_selections_total{decision=\"chat\",outcome=\"scored\"} 5.0",
            "mf_selections_total{decision=\"chat\",outcome=\"failed\"} 1.0",
            "mf_selections_total{decision=\"chat\",outcome=\"fallback_cheapest\"} 0.0",
            "mf_selected_total{decision=\"chat\",model=\"premium\"} 3.0",
            "mf_selected_total{decision=\"chat\",model=\"economy\"} 2.0",
            "mf_drops_total{model=\"premium\",reason=\"excluded\"} 2.0",
            "mf_drops_total{model=\"economy\",reason=\"excluded\"} 1.0",
            "mf_drops_total{model=\"premium\",reason=\"tpot\"} 1.0",
            "mf_inflight{model=\"economy\"} 1.0",
            "mf_inflight{model=\"premium\"} 1.0",
            "mf_inflight_tokens{model=\"economy\"} 1000.0",
            "mf_inflight_tokens{model=\"premium\"} 2500.0",
            "mf_latency_seconds{metric=\"ttft\",model=\"economy\",percentile=\"95\"} NaN",
            "mf_samples_refused_total{metric=\"ttft\",model=\"economy\"} 1.0",
            "mf_samples_clamped_total{metric=\"tpot\",model=\"premium\"} 0.0",
            "mf_leases_healed_total{model=\"economy\"} 0.0",
            "mf_reloads_total{result=\"applied\"} 0.0",
            "mf_reloads_total{result=\"refused\"} 0.0",
            "mf_fleet_exchanges_total{result=\"done\"} 1.0",
            "mf_fleet_exchanges_total{result=\"failed\"} 0.0",
            "mf_fleet_replicas 2.0");
        assertThat(text).containsPattern("mf_latency_seconds\\{metric=\"tpot\",model=\"economy\",percentile=\"95\"} 0\\.042");
        assertThat(text).doesNotContain("mf_engine");
        engine.end(lease);
        engine.end(weighted);
        assertThat(registry.scrape()).contains("mf_inflight_tokens{model=\"premium\"} 0.0");
    }

    @Test
    void shouldExposeTheServerSignalsAndFollowTheirReconfiguration()
    {
        clock.update(TimeUnit.SECONDS.toNanos(1_000));
        final ServerMetricsSettings settings = ServerMetricsSettings.every(TimeUnit.MILLISECONDS.toNanos(500));
        final ServerBackend one = new ServerBackend("premium", false, "127.0.0.1", 8001, ServerKind.VLLM);
        final ServerBackend two = new ServerBackend("premium", false, "127.0.0.1", 8002, ServerKind.VLLM);
        engine = MultiFactorEngine.builder(plans()).clock(clock).serverMetrics(settings, List.of(one)).build();
        new MultiFactorMetrics(engine).bindTo(registry);
        final int premium = engine.modelId("premium");
        engine.reportServerLoad(premium, one.key(), 12, 3, 0.95);
        engine.reportServerLoad(premium, one.key(), 1, 3, 1.5);
        engine.refreshNow();
        assertThat(registry.scrape()).contains(
            "mf_server_queue{model=\"premium\"} 12.0",
            "mf_server_kv_cache{model=\"premium\"} 0.95",
            "mf_server_fresh{backend=\"http://127.0.0.1:8001\"} 1.0",
            "mf_server_scrapes_total{backend=\"http://127.0.0.1:8001\",result=\"ok\"} 1.0",
            "mf_server_scrapes_total{backend=\"http://127.0.0.1:8001\",result=\"refused\"} 1.0",
            "mf_server_scrapes_total{backend=\"http://127.0.0.1:8001\",result=\"failed\"} 0.0")
            .doesNotContain("mf_server_queue{model=\"economy\"}");
        engine.configureServers(settings, List.of(two));
        engine.refreshNow();
        assertThat(registry.scrape()).contains(
            "mf_server_queue{model=\"premium\"} NaN",
            "mf_server_fresh{backend=\"http://127.0.0.1:8002\"} 0.0")
            .doesNotContain("8001");
    }

    @Test
    void shouldExposeSessionsByRuleAndTheLiveEntries()
    {
        clock.update(TimeUnit.SECONDS.toNanos(1_000));
        engine = MultiFactorEngine.builder(new PlansBuilder()
            .model("premium", 0.9, 10.0)
            .model("economy", 0.1, 1.0)
            .decision("chat").candidates("premium", "economy").weights(1.0, 0.0, 0.0, 0.0)
            .session(new SessionPolicy(0.1, 0.05, 1, TimeUnit.SECONDS.toNanos(60), 1)).add()
            .build()).clock(clock).build();
        new MultiFactorMetrics(engine).bindTo(registry);
        final Request request = new Request().decision(engine.decisionId("chat"));
        final Selection selection = new Selection();
        engine.select(request.session(1L), selection);
        engine.select(request.session(1L), selection);
        engine.select(request.session(1L), selection);
        // max_sessions 1: a second key forgets the first.
        engine.select(request.session(2L), selection);
        engine.refreshNow();
        assertThat(registry.scrape()).contains(
            "# HELP mf_sessions_total Session requests per decision by rule",
            "mf_sessions_total{decision=\"chat\",rule=\"new\"} 2.0",
            "mf_sessions_total{decision=\"chat\",rule=\"stay\"} 2.0",
            "mf_sessions_total{decision=\"chat\",rule=\"switch\"} 0.0",
            "mf_sessions_total{decision=\"chat\",rule=\"handoff\"} 0.0",
            "mf_sessions_total{decision=\"chat\",rule=\"evicted\"} 1.0",
            "mf_sessions_live{decision=\"chat\"} 1.0");
        clock.advance(TimeUnit.SECONDS.toNanos(60));
        engine.refreshNow();
        assertThat(registry.scrape()).contains("mf_sessions_live{decision=\"chat\"} 0.0");
    }

    @Test
    void shouldExposeEjectionsByCauseAndWhetherEachModelIsEjected()
    {
        clock.update(TimeUnit.SECONDS.toNanos(1_000));
        engine = MultiFactorEngine.builder(new PlansBuilder()
            .model("premium", 0.9, 10.0)
            .model("economy", 0.1, 1.0)
            .reliability("premium", new EjectionPolicy(2, 30_000, 300_000, 50))
            .reliability("economy", new EjectionPolicy(2, 30_000, 300_000, 50))
            .decision("chat").candidates("premium", "economy").weights(1.0, 0.0, 0.0, 0.0).add()
            .build()).clock(clock).build();
        new MultiFactorMetrics(engine).bindTo(registry);
        final int premium = engine.modelId("premium");
        final int economy = engine.modelId("economy");
        engine.end(engine.begin(premium), 500);
        engine.end(engine.begin(premium), 503);
        engine.end(engine.begin(economy), 429, 5_000);
        engine.refreshNow();
        assertThat(registry.scrape()).contains(
            "mf_ejections_total{cause=\"5xx\",model=\"premium\"} 1.0",
            "mf_ejections_total{cause=\"retry_after\",model=\"premium\"} 0.0",
            "mf_ejections_total{cause=\"retry_after\",model=\"economy\"} 1.0",
            "mf_ejected{model=\"premium\"} 1.0",
            "mf_ejected{model=\"economy\"} 1.0");
        clock.advance(TimeUnit.SECONDS.toNanos(6));
        engine.refreshNow();
        assertThat(registry.scrape()).contains("mf_ejected{model=\"economy\"} 0.0", "mf_ejected{model=\"premium\"} 1.0");
    }

    @Test
    void shouldFollowReloadsAddingAndRemovingMeters()
    {
        final MultiFactorEngine engine = engine();
        final MultiFactorMetrics metrics = new MultiFactorMetrics(engine, Tags.of("router", "r1"));
        metrics.bindTo(registry);
        engine.select(engine.decisionId("chat"), null, new Selection());
        assertThat(registry.scrape()).contains("mf_inflight{model=\"economy\",router=\"r1\"} 0.0");

        engine.replacePlans(new PlansBuilder(engine.plans())
            .model("premium", 0.9, 10.0).model("fresh", 0.5, 2.0)
            .decision("chat").candidates("premium", "fresh").weights(1.0, 0.0, 0.0, 0.0).add()
            .build());
        engine.select(engine.decisionId("chat"), null, new Selection());
        engine.refreshNow();

        final String text = registry.scrape();
        assertThat(text).doesNotContain("model=\"economy\"")
            .contains(
                "mf_inflight{model=\"fresh\",router=\"r1\"} 0.0",
                "mf_selected_total{decision=\"chat\",model=\"premium\",router=\"r1\"} 2.0",
                "mf_selected_total{decision=\"chat\",model=\"fresh\",router=\"r1\"} 0.0",
                "mf_reloads_total{result=\"applied\",router=\"r1\"} 1.0");

        metrics.close();
        assertThat(registry.scrape()).doesNotContain("mf_");
    }
}
