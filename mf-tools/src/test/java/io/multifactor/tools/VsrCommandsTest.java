package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code validate}, {@code explain} and {@code simulate} take vLLM Semantic Router files as they are: the bundled
 * {@code examples/vsr-config.yaml}, and the same configuration under {@code config:} of Helm values.
 */
class VsrCommandsTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path CONFIG = ROOT.resolve("examples/vsr-config.yaml");
    private static final Path REQUEST = ROOT.resolve("examples/vsr-request.yaml");

    @TempDir
    Path dir;

    @Test
    void shouldSummarizeAVsrFileWithItsSkippedDecisionsAndIgnoredSections()
    {
        final CliRun run = CliRun.of("validate", CONFIG.toString());

        assertThat(run.err()).isEmpty();
        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        assertThat(run.out()).isEqualTo(CONFIG + ": valid (vLLM Semantic Router v0.3 configuration)\n" +
            "models: 2\n" +
            "  fast-cheap  quality 0.6  prompt_per_1m 0.2  completion_per_1m 0.6\n" +
            "  slow-strong  quality 0.9  prompt_per_1m 3.0  completion_per_1m 9.0\n" +
            "multi_factor decisions: 2\n" +
            "  quality_answers  candidates slow-strong, fast-cheap  p95  on_no_candidates cheapest\n" +
            "    weights   quality 0.600  latency 0.200  cost 0.100  load 0.100  (normalized)\n" +
            "    slo       min_quality -  max_tpot_ms -  max_ttft_ms 800.0  max_cost_per_1m -  max_inflight -\n" +
            "    ranking   objective weighted  tie_band 0.0  tie_break first\n" +
            "    latency   p95 of TPOT, else TTFT  cost_mix prompt 1.0 completion 0.0\n" +
            "  batch/bulk  candidates fast-cheap, slow-strong  p95  on_no_candidates first\n" +
            "    weights   quality 0.200  latency 0.000  cost 0.800  load 0.000  (normalized)\n" +
            "    slo       min_quality -  max_tpot_ms -  max_ttft_ms -  max_cost_per_1m -  max_inflight -\n" +
            "    ranking   objective weighted  tie_band 0.0  tie_break first\n" +
            "    latency   p95 of TPOT, else TTFT  cost_mix prompt 1.0 completion 0.0\n" +
            "signals: latency_window 1m  latency_refresh 1s  inflight_max_age 10m  counters_file - (in memory)\n" +
            "fleet: off (this replica uses its own signals only)\n" +
            "skipped decisions (not multi_factor): 1\n" +
            "  pinned_fast  algorithm static  at routing.decisions[1] (line 33)\n" +
            "ignored top-level sections: 3 (listeners, entrypoints, global)\n" +
            "warnings: 0\n");
    }

    @Test
    void shouldPrintTheSummaryThatTheDocsShow() throws IOException
    {
        final String docs = Files.readString(ROOT.resolve("docs/configuration.md"));
        final String command = "$ bin/mf validate examples/vsr-config.yaml\n";
        final int start = docs.indexOf(command) + command.length();
        final String shown = docs.substring(start, docs.indexOf("$ ", start));

        final CliRun run = CliRun.of("validate", CONFIG.toString());

        assertThat(run.out().replace(CONFIG.toString(), "examples/vsr-config.yaml")).isEqualTo(shown);
    }

    @Test
    void shouldPrintWhatTheOverlayAddsAsTheDocsShow() throws IOException
    {
        final String docs = Files.readString(ROOT.resolve("docs/configuration.md"));
        final String command = "$ bin/mf validate examples/vsr-config.yaml --overlay examples/vsr-overlay.yaml\n";
        final int start = docs.indexOf(command) + command.length();
        assertThat(start).isGreaterThan(command.length());
        final String[] shown = docs.substring(start, docs.indexOf("```", start)).split("\n");

        final CliRun run = CliRun.of("validate", CONFIG.toString(), "--overlay",
            ROOT.resolve("examples/vsr-overlay.yaml").toString());

        assertThat(run.exit()).as(run.err()).isEqualTo(ExitCodes.OK);
        final String out = run.out().replace(CONFIG.toString(), "examples/vsr-config.yaml");
        // Every line the docs show ("  ..." stands for lines left out) is printed, in that order: the overlay's
        // servers with their backends, the reliability with its defaults, the scrape settings.
        int from = 0;
        for (final String line : shown)
        {
            if (line.equals("  ..."))
            {
                continue;
            }
            final int at = out.indexOf(line + "\n", from);
            assertThat(at).as("printed after offset " + from + ": " + line + "\nin:\n" + out).isGreaterThanOrEqualTo(from);
            from = at + line.length();
        }
        assertThat(out).contains("    server sglang  backend_refs 1 (strong-local http://127.0.0.1:8001/v1 weight 1.0)\n",
            "server_metrics: every 500ms  path /metrics  timeout 250ms  stale_after 2s  when_stale ignore\n");
    }

    @Test
    void shouldSummarizeTheSameConfigurationUnderConfigOfHelmValues() throws IOException
    {
        final Path values = helmValues();

        final CliRun run = CliRun.of("validate", values.toString());

        assertThat(run.err()).isEmpty();
        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        assertThat(run.out())
            .startsWith(values + ": valid (vLLM Semantic Router v0.3 configuration under config: of Helm values)\n")
            .contains("multi_factor decisions: 2\n")
            .contains("  pinned_fast  algorithm static  at config.routing.decisions[1] (line 36)\n")
            .contains("ignored top-level sections: 5 (replicaCount, image, config.listeners, config.entrypoints, " +
                "config.global)\n");
    }

    @Test
    void shouldReportTheProblemsOfABrokenVsrFileInItsOwnPaths() throws IOException
    {
        final Path broken = Files.writeString(dir.resolve("broken.yaml"), Files.readString(CONFIG)
            .replace("slo: {max_ttft_ms: 800}", "slo: {max_ttft_ms: 800, max_tpot: 90}")
            .replace("modelRefs: [{model: fast-cheap}, {model: slow-strong}]",
                "modelRefs: [{model: fast-chep}, {model: slow-strong}]"));

        final CliRun run = CliRun.of("validate", broken.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo(
            broken + ":30:35: routing.decisions[0].algorithm.multi_factor.slo.max_tpot: unknown key \"max_tpot\" " +
                "(did you mean max_tpot_ms?)\n" +
            broken + ":43:31: recipes[0].routing.decisions[0].modelRefs[0].model: unknown model \"fast-chep\": " +
                "defined in neither providers.models nor routing.modelCards (did you mean fast-cheap?)\n" +
            broken + ": refused, 2 problems\n");
    }

    @Test
    void shouldExplainASelectionOnARecipesDecision()
    {
        final CliRun run = CliRun.of("explain", "--config", CONFIG.toString(), "--scenario", REQUEST.toString(), "--json");

        assertThat(run.err()).isEmpty();
        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        assertThat(run.out()).contains("\"decision\": \"batch/bulk\"").contains("\"outcome\": \"scored\"")
            .contains("\"selected\": \"fast-cheap\"");
    }

    @Test
    void shouldSuggestTheQualifiedNameOfARecipesDecision() throws IOException
    {
        final Path request = Files.writeString(dir.resolve("request.yaml"), "decision: bulk\n");

        final CliRun run = CliRun.of("explain", "--config", CONFIG.toString(), "--scenario", request.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith(request + ":1:11: decision: decision \"bulk\" is not in the configuration " +
            "(a recipe's decision is named RECIPE/DECISION: did you mean batch/bulk?)\n");
    }

    @Test
    void shouldExplainFromHelmValuesToo() throws IOException
    {
        final CliRun run = CliRun.of("explain", "--config", helmValues().toString(), "--scenario", REQUEST.toString());

        assertThat(run.err()).isEmpty();
        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        assertThat(run.out()).startsWith("decision  batch/bulk\noutcome   scored\nselected  fast-cheap\n");
    }

    @Test
    void shouldSimulateTheDecisionsOfAVsrFile()
    {
        final CliRun run = CliRun.of("simulate", "--config", CONFIG.toString(), "--seconds", "20");

        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        assertThat(run.out()).contains("vsr-config.profile.yaml").contains("fast-cheap").contains("slow-strong")
            .contains("failed 0");
    }

    @Test
    void shouldSuggestTheQualifiedNameInATrafficProfile() throws IOException
    {
        final Path profile = Files.writeString(dir.resolve("profile.yaml"),
            Files.readString(ROOT.resolve("examples/vsr-config.profile.yaml")).replace("  batch/bulk: 0.5", "  bulk: 0.5"));

        final CliRun run = CliRun.of("simulate", "--config", CONFIG.toString(), "--profile", profile.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo(profile + ":10:3: decisions.bulk: unknown decision \"bulk\": the configuration " +
            "has no such decision (a recipe's decision is named RECIPE/DECISION: did you mean batch/bulk?)\n" +
            profile + ": refused, 1 problem\n");
    }

    /** @return the example wrapped as a Helm values file: its lines under {@code config:}, beside chart settings. */
    private Path helmValues() throws IOException
    {
        final StringBuilder values = new StringBuilder("replicaCount: 2\nimage: {repository: example/router, tag: v0.3.0}\n" +
            "config:\n");
        for (final String line : Files.readAllLines(CONFIG))
        {
            values.append(line.isEmpty() ? "" : "  " + line).append('\n');
        }
        return Files.writeString(dir.resolve("values.yaml"), values.toString());
    }
}
