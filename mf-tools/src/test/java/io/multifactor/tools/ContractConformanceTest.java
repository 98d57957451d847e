package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Findings of a newcomer's review of {@code bin/mf} against docs/configuration.md and the README, kept as regressions: exit 2
 * means invalid input with the message on stderr and nothing on stdout, and every message names what is wrong.
 */
class ContractConformanceTest
{
    private static final String EXAMPLE_CONFIG = Path.of("..", "examples", "router.yaml").toString();

    @TempDir
    Path dir;

    @Test
    void shouldRefuseACsvFileInAMissingDirectoryBeforePrintingAnything()
    {
        final Path csv = dir.resolve("absent").resolve("sim.csv");

        final CliRun run = CliRun.of("simulate", "--config", EXAMPLE_CONFIG, "--seconds", "5", "--csv", csv.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("--csv: cannot write " + csv).contains("does not exist");
        assertThat(csv).doesNotExist();
    }

    @Test
    void shouldRefuseAPlotPathThatIsADirectoryBeforePrintingAnything()
    {
        final CliRun run = CliRun.of("simulate", "--config", EXAMPLE_CONFIG, "--seconds", "5", "--plot", dir.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("--plot: cannot write " + dir + ": it is a directory");
    }

    @Test
    void shouldNameTheBundledExampleTheSameWayWhereverTheRepositoryLives()
    {
        // The working directory (mf-testkit) is not the repository root: the default run used to print absolute paths.
        final String previous = System.getProperty(SimulateCommand.HOME_PROPERTY);
        System.setProperty(SimulateCommand.HOME_PROPERTY, Path.of("..").toAbsolutePath().normalize().toString());
        try
        {
            final CliRun run = CliRun.of("simulate", "--seconds", "5");

            assertThat(run.exit()).as(run.err()).isEqualTo(ExitCodes.OK);
            assertThat(run.out()).startsWith("simulating examples/router.yaml with examples/router.profile.yaml: 5 s,");
        }
        finally
        {
            if (previous == null)
            {
                System.clearProperty(SimulateCommand.HOME_PROPERTY);
            }
            else
            {
                System.setProperty(SimulateCommand.HOME_PROPERTY, previous);
            }
        }
    }

    @Test
    void shouldSayAnIntegerTooLargeForALongIsOutOfRangeNotNegative() throws IOException
    {
        final Path config = write("""
            models:
              - name: a
            decisions:
              - name: d
                modelRefs: [{model: a}]
                algorithm:
                  type: multi_factor
                  multi_factor:
                    slo: {max_inflight: 99999999999999999999}
            """);

        final CliRun run = CliRun.of("validate", config.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains(config + ":9:29: decisions[0].algorithm.multi_factor.slo.max_inflight: " +
            "must be in 0..9223372036854775807, got 99999999999999999999");
    }

    @Test
    void shouldNameAListOrMappingGivenWhereAScalarOrMappingIsExpected() throws IOException
    {
        final Path config = write("""
            models:
              - name: a
                quality_score: [0.5, 0.6]
            decisions:
              - name: d
                modelRefs: [{model: a}]
                algorithm:
                  type: multi_factor
                  multi_factor:
                    weights: [0.4, 0.2, 0.2, 0.2]
                    latency_percentile: {p: 95}
            """);

        final CliRun run = CliRun.of("validate", config.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains(
            config + ":3:20: models[0].quality_score: expected a number, got a list [0.5, 0.6]",
            config + ":10:18: decisions[0].algorithm.multi_factor.weights: expected a mapping, got a list " +
                "[0.4, 0.2, 0.2, 0.2]",
            config + ":11:29: decisions[0].algorithm.multi_factor.latency_percentile: expected an integer, got " +
                "a mapping {p: 95}");
    }

    @Test
    void shouldSuggestTheKeyWhoseStartIsMisspelt() throws IOException
    {
        final Path config = write("""
            models:
              - name: a
                qualty: 0.5
            decisions:
              - name: d
                modelRefs: [{model: a}]
            """);

        final CliRun run = CliRun.of("validate", config.toString());

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains(
            config + ":3:5: models[0].qualty: unknown key \"qualty\" (did you mean quality_score?)");
    }

    @Test
    void shouldPrintUsageForHelpAndHelpOfASubcommand()
    {
        final CliRun help = CliRun.of("help");
        final CliRun helpExplain = CliRun.of("help", "explain");

        assertThat(help.exit()).isEqualTo(ExitCodes.OK);
        assertThat(help.out()).contains("Usage: mf").contains("validate").contains("explain").contains("simulate");
        assertThat(helpExplain.exit()).isEqualTo(ExitCodes.OK);
        assertThat(helpExplain.out()).contains("Usage: mf explain").contains("--scenario").contains("--json");
    }

    @Test
    void shouldRefuseHelpOfAnUnknownSubcommandAsInvalidInput()
    {
        final CliRun run = CliRun.of("help", "frob");

        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("frob");
    }

    private Path write(final String yaml) throws IOException
    {
        final Path file = dir.resolve("router.yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
