package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bin/mf compare --suite}, in-process on two bundled scenarios, two policies, one short seed. */
class CompareSuiteCommandTest
{
    private static final Path EXAMPLES = Path.of("..", "examples", "compare");

    private static Path twoScenarios(final Path dir) throws Exception
    {
        final Path suite = Files.createDirectories(dir.resolve("suite"));
        for (final String name : new String[] {"1-degrading", "6-mixed-sizes"})
        {
            for (final String suffix : new String[] {".yaml", ".profile.yaml", ".recommended.yaml"})
            {
                Files.copy(EXAMPLES.resolve(name + suffix), suite.resolve(name + suffix));
            }
        }
        return suite;
    }

    @Test
    void shouldPrintATablePerScenarioWithEveryPolicyAndWriteItsChart(@TempDir final Path dir) throws Exception
    {
        final Path charts = dir.resolve("charts");
        final CliRun run = CliRun.of("compare", "--suite", twoScenarios(dir).toString(), "--seeds", "2",
            "--policies", "round_robin,recommended", "--seconds", "5", "--warmup-seconds", "1", "--out",
            charts.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        for (final String scenario : new String[] {"1-degrading", "6-mixed-sizes"})
        {
            assertThat(run.out()).containsPattern(scenario + ": knee [0-9.]+ requests/s \\(round_robin, seed 1\\)");
            final Path chart = charts.resolve("compare-" + scenario + ".png");
            assertThat(chart).exists();
            final byte[] png = Files.readAllBytes(chart);
            assertThat(png[1]).isEqualTo((byte)'P');
            assertThat(png.length).isGreaterThan(10_000);
            assertThat(run.err()).contains("suite: " + scenario + ": knee ").contains("wrote " + chart);
        }
        final String[] lines = run.out().split("\n");
        int rows = 0;
        for (final String line : lines)
        {
            if (line.startsWith("round_robin ") || line.startsWith("recommended "))
            {
                rows++;
                // Eight columns, each a value or a min-max range whose ends are in order.
                final String[] cells = line.trim().split("\\s+");
                assertThat(cells).hasSize(9);
                final String attainment = cells[1].replace("*", "");
                if (attainment.contains("-"))
                {
                    final String[] ends = attainment.replace("%", "").split("-");
                    assertThat(Double.parseDouble(ends[0])).isLessThanOrEqualTo(Double.parseDouble(ends[1]));
                }
            }
        }
        assertThat(rows).isEqualTo(4);
        assertThat(run.out()).as("no trailing blanks").doesNotContain(" \n");
        assertThat(run.out()).contains("*").contains("2 scenarios x 2 policies x 2 seeds (1 s warm-up + 5 s measured");
        assertThat(run.err()).contains("suite: runs 8/8");
    }

    @Test
    void shouldRefuseAnUnknownPolicyAndAMissingFolder(@TempDir final Path dir) throws Exception
    {
        final CliRun unknown = CliRun.of("compare", "--suite", EXAMPLES.toString(), "--policies", "round_robin,fastest");
        assertThat(unknown.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(unknown.err()).contains("unknown policy \"fastest\"").contains("recommended");
        assertThat(unknown.out()).isEmpty();
        final CliRun missing = CliRun.of("compare", "--suite", dir.resolve("nowhere").toString());
        assertThat(missing.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(missing.err()).contains("is not a folder");
        final CliRun seeds = CliRun.of("compare", "--suite", EXAMPLES.toString(), "--seeds", "0");
        assertThat(seeds.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(seeds.err()).contains("--seeds");
    }

    @Test
    void shouldLocateABrokenScenarioFile(@TempDir final Path dir) throws Exception
    {
        final Path suite = twoScenarios(dir);
        Files.writeString(suite.resolve("6-mixed-sizes.profile.yaml"), Files.readString(
            suite.resolve("6-mixed-sizes.profile.yaml")).replace("tokens_per_slot: 1500", "tokens_per_slots: 1500"));
        final CliRun run = CliRun.of("compare", "--suite", suite.toString());
        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.err()).contains("6-mixed-sizes.profile.yaml:").contains("tokens_per_slots");
        assertThat(run.out()).isEmpty();
    }
}
