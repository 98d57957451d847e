package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ValidateCommandTest
{
    @TempDir
    Path dir;

    @Test
    void shouldPrintASummaryWithWarningsAndExitZero() throws IOException
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), """
            models:
              - {name: a, quality_score: 0.5, pricing: {prompt_per_1m: 1.0}}
              - {name: b}
            decisions:
              - name: d
                modelRefs: [{model: a}, {model: b}]
                algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1, cost: -1}, latency_percentile: 99}}
            """);

        final CliRun run = CliRun.of("validate", config.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        assertThat(run.err()).isEmpty();
        assertThat(run.out()).isEqualTo(config + ": valid\n" +
            "models: 2\n" +
            "  a  quality 0.5  prompt_per_1m 1.0  completion_per_1m -\n" +
            "  b  quality -  prompt_per_1m -  completion_per_1m -\n" +
            "decisions: 1\n" +
            "  d  candidates a, b  p99  on_no_candidates cheapest\n" +
            "    weights   quality 1.000  latency 0.000  cost 0.000  load 0.000  (normalized)\n" +
            "    slo       min_quality -  max_tpot_ms -  max_ttft_ms -  max_cost_per_1m -  max_inflight -\n" +
            "    ranking   objective weighted  tie_band 0.0  tie_break first\n" +
            "    latency   p99 of TPOT, else TTFT  cost_mix prompt 1.0 completion 0.0\n" +
            "signals: latency_window 1m  latency_refresh 1s  inflight_max_age 10m  counters_file - (in memory)\n" +
            "fleet: off (this replica uses its own signals only)\n" +
            "warnings: 1\n" +
            "  " + config + ":7:80: decisions[0].algorithm.multi_factor.weights.cost: negative weight -1 is clamped to 0\n");
    }

    @Test
    void shouldShowTheSettingsItUnderstoodWithDefaultsFilledInAndWeightsNormalized() throws IOException
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), """
            models:
              - {name: a, quality_score: 0.9, pricing: {prompt_per_1m: 2.0, completion_per_1m: 6.0}}
              - {name: b, quality_score: 0.4, pricing: {prompt_per_1m: 0.5, completion_per_1m: 1.5}}
            decisions:
              - name: ranked
                modelRefs: [{model: a}, {model: b}]
                algorithm:
                  type: multi_factor
                  multi_factor:
                    weights: {quality: 2, latency: 1, cost: 1}
                    slo: {min_quality: 0.3, max_tpot_ms: 150, max_ttft_ms: 900, max_cost_per_1m: 4.5, max_inflight: 12}
                    latency_percentile: 90
                    on_no_candidates: fail
                    latency_metric: ttft
                    cost_mix: {prompt: 1, completion: 3}
                    tie_band: 0.05
                    tie_break: random
              - name: lexi
                modelRefs: [{model: b}, {model: a}]
                algorithm:
                  type: multi_factor
                  multi_factor:
                    objective: lexicographic
                    priority: [quality, cost]
                    tolerance: 0.1
            signals:
              latency_window: 90s
              latency_refresh: 250ms
              inflight_max_age: 1500us
              counters_file: /dev/shm/r.counters
            fleet:
              redis: redis://user:s3cret@127.0.0.1:6390/2
              cluster: prod
              exchange_every: 500ms
            """);

        final CliRun run = CliRun.of("validate", config.toString());

        assertThat(run.err()).isEmpty();
        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        // Weights 2:1:1:0 normalized to sum 1; every ceiling, the floor, the metric, the mix and the tie settings as
        // read; the lexicographic decision's weights are its defaults, marked as ignored; no password is printed.
        assertThat(run.out()).isEqualTo(config + ": valid\n" +
            "models: 2\n" +
            "  a  quality 0.9  prompt_per_1m 2.0  completion_per_1m 6.0\n" +
            "  b  quality 0.4  prompt_per_1m 0.5  completion_per_1m 1.5\n" +
            "decisions: 2\n" +
            "  ranked  candidates a, b  p90  on_no_candidates fail\n" +
            "    weights   quality 0.500  latency 0.250  cost 0.250  load 0.000  (normalized)\n" +
            "    slo       min_quality 0.3  max_tpot_ms 150.0  max_ttft_ms 900.0  max_cost_per_1m 4.5  max_inflight 12\n" +
            "    ranking   objective weighted  tie_band 0.05  tie_break random\n" +
            "    latency   p90 of TTFT  cost_mix prompt 1.0 completion 3.0\n" +
            "  lexi  candidates b, a  p95  on_no_candidates cheapest\n" +
            "    weights   quality 0.250  latency 0.250  cost 0.250  load 0.250  (ignored: lexicographic)\n" +
            "    slo       min_quality -  max_tpot_ms -  max_ttft_ms -  max_cost_per_1m -  max_inflight -\n" +
            "    ranking   objective lexicographic  priority quality > cost  tolerance 0.1  tie_break first\n" +
            "    latency   p95 of TPOT, else TTFT  cost_mix prompt 1.0 completion 0.0\n" +
            "signals: latency_window 90s  latency_refresh 250ms  inflight_max_age 1500us  counters_file /dev/shm/r.counters\n" +
            "fleet: redis redis://127.0.0.1:6390/2  cluster prod  exchange_every 500ms\n" +
            "warnings: 0\n");
        assertThat(run.out()).doesNotContain("s3cret");
    }

    @Test
    void shouldShowTheLoadSignalsPickerEstimatorServersAndReliabilityItUnderstood() throws IOException
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), """
            models:
              - name: a
                quality_score: 0.9
                server: vllm
                provider_model_id: a-7b
                backend_refs:
                  - {name: a-1, endpoint: 127.0.0.1:8000, weight: 80}
                  - {base_url: https://api.example.com/v1}
                reliability: {consecutive_5xx: 5, base_ejection_time: 20s, max_ejection_percent: 50}
              - {name: b, quality_score: 0.4}
            decisions:
              - name: loaded
                modelRefs: [{model: a}, {model: b}]
                algorithm:
                  type: multi_factor
                  multi_factor:
                    weights: {quality: 1, load: 1, queue: 1, kv_cache: 1}
                    slo: {max_inflight: 40, max_inflight_tokens: 200000, max_queue: 8, max_kv_cache: 0.9}
                    pick: p2c
                    load_metric: tokens
              - name: plain
                modelRefs: [{model: b}]
            signals:
              latency_estimator: peak_ewma
              ewma_decay: 5s
              default_request_tokens: 1500
              server_metrics: {every: 250ms, stale_after: 1s, when_stale: saturated}
            """);

        final CliRun run = CliRun.of("validate", config.toString());

        assertThat(run.err()).isEmpty();
        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        // A model's server, backends and reliability (defaults filled in: max_ejection_time 300s); the load ceilings,
        // when_stale, p2c and token load where a decision sets them, none of them where it does not; the estimator,
        // its decay, the request weight and the scrape settings (timeout: half of every).
        assertThat(run.out()).isEqualTo(config + ": valid\n" +
            "models: 2\n" +
            "  a  quality 0.9  prompt_per_1m -  completion_per_1m -\n" +
            "    server vllm  provider_model_id a-7b  backend_refs 2 (a-1 http://127.0.0.1:8000/v1 weight 80.0, " +
            "https://api.example.com/v1 https://api.example.com:443/v1 weight 1.0)\n" +
            "    reliability  consecutive_5xx 5  base_ejection_time 20s  max_ejection_percent 50  max_ejection_time 5m\n" +
            "  b  quality 0.4  prompt_per_1m -  completion_per_1m -\n" +
            "decisions: 2\n" +
            "  loaded  candidates a, b  p95  on_no_candidates cheapest\n" +
            "    weights   quality 0.250  latency 0.000  cost 0.000  load 0.250  queue 0.250  kv_cache 0.250  " +
            "(normalized)\n" +
            "    slo       min_quality -  max_tpot_ms -  max_ttft_ms -  max_cost_per_1m -  max_inflight 40  " +
            "max_inflight_tokens 200000  max_queue 8  max_kv_cache 0.9  when_stale saturated\n" +
            "    ranking   objective weighted  tie_band 0.0  tie_break first  pick p2c  load_metric tokens\n" +
            "    latency   p95 of TPOT, else TTFT  cost_mix prompt 1.0 completion 0.0\n" +
            "  plain  candidates b  p95  on_no_candidates cheapest\n" +
            "    weights   quality 0.250  latency 0.250  cost 0.250  load 0.250  (normalized)\n" +
            "    slo       min_quality -  max_tpot_ms -  max_ttft_ms -  max_cost_per_1m -  max_inflight -\n" +
            "    ranking   objective weighted  tie_band 0.0  tie_break first\n" +
            "    latency   p95 of TPOT, else TTFT  cost_mix prompt 1.0 completion 0.0\n" +
            "signals: latency_window 1m  latency_refresh 1s  inflight_max_age 10m  counters_file - (in memory)  " +
            "latency_estimator peak_ewma  ewma_decay 5s  default_request_tokens 1500\n" +
            "server_metrics: every 250ms  path /metrics  timeout 125ms  stale_after 1s  when_stale saturated\n" +
            "fleet: off (this replica uses its own signals only)\n" +
            "warnings: 0\n");
    }

    @Test
    void shouldShowTheDefaultRequestWeightWhereADecisionReadsTokens() throws IOException
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), """
            models:
              - {name: a}
            decisions:
              - name: d
                modelRefs: [{model: a}]
                algorithm: {type: multi_factor, multi_factor: {slo: {max_inflight_tokens: 5000}}}
            """);

        final CliRun run = CliRun.of("validate", config.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        // The ceiling counts tokens whatever load_metric says, so the weight of a lease without counts matters.
        assertThat(run.out())
            .contains("max_inflight -  max_inflight_tokens 5000\n")
            .contains("    ranking   objective weighted  tie_band 0.0  tie_break first\n")
            .contains("counters_file - (in memory)  default_request_tokens 1000\n")
            .doesNotContain("server_metrics:").doesNotContain("latency_estimator").doesNotContain("reliability");
    }

    @Test
    void shouldPrintEveryProblemOnStderrNothingOnStdoutAndExitTwo() throws IOException
    {
        final Path config = Files.writeString(dir.resolve("bad.yaml"), """
            models:
              - {name: a, quality_score: .inf}
            decisions:
              - name: d
                modelRefs: []
            """);

        final CliRun run = CliRun.of("validate", config.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo(
            config + ":2:30: models[0].quality_score: must be a finite number, got .inf\n" +
            config + ":5:16: decisions[0].modelRefs: must not be empty, got []\n" +
            config + ": refused, 2 problems\n");
    }

    @Test
    void shouldExitTwoWithoutASubcommand()
    {
        final CliRun run = CliRun.of();

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("missing subcommand").contains("validate").contains("explain");
    }
}
