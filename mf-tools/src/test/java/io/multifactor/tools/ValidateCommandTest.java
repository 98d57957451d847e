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
            "warnings: 1\n" +
            "  " + config + ":7:80: decisions[0].algorithm.multi_factor.weights.cost: negative weight -1 is clamped to 0\n");
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
