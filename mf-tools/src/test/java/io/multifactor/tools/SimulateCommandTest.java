package io.multifactor.tools;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.sim.IntervalRow;
import io.multifactor.sim.ModelBehaviour;
import io.multifactor.sim.ProfileReader;
import io.multifactor.sim.SimulationListener;
import io.multifactor.sim.SimulationProfile;
import io.multifactor.sim.SimulationReport;
import io.multifactor.sim.Simulator;
import io.multifactor.tools.report.CsvReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

import static org.assertj.core.api.Assertions.assertThat;

class SimulateCommandTest
{
    static final Path EXAMPLE_CONFIG = Path.of("..", "examples", "router.yaml");
    private static final Path EXAMPLE_PROFILE = Path.of("..", "examples", "router.profile.yaml");

    @TempDir
    Path dir;

    @Test
    void shouldRunTheBundledExampleWithoutArguments()
    {
        final String previous = System.getProperty(SimulateCommand.HOME_PROPERTY);
        System.setProperty(SimulateCommand.HOME_PROPERTY, "..");
        try
        {
            final Result result = run();

            assertThat(result.exitCode).isZero();
            assertThat(result.out).contains("examples/router.yaml", "examples/router.profile.yaml")
                .contains("fast-cheap", "slow-strong").contains("SLO attainment").contains("cost per 1k reqs");
            assertThat(result.err).contains("simulated 120/120 s");
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
    void shouldCompareTheBundledEjectionExampleWithoutAndWithEjection()
    {
        final Result result = run("--config", "../examples/ejection.yaml");
        assertThat(result.exitCode).as(result.err).isZero();
        assertThat(result.out).contains("ejection of failing models, same traffic and seed:",
            "without ejection    with ejection", "strong: recovery (50 s) to traffic");
        final java.util.regex.Matcher failed = java.util.regex.Pattern
            .compile("failed requests \\(5xx, 429 answered\\) +(\\d+) +(\\d+)\n").matcher(result.out);
        assertThat(failed.find()).as(result.out).isTrue();
        assertThat(Long.parseLong(failed.group(2))).isLessThan(Long.parseLong(failed.group(1)) / 4);
        assertThat(run("--config", "../examples/router.yaml").out).doesNotContain("ejection of failing models");
    }

    @Test
    void shouldRunAsASubcommandOfMf()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();

        final int exitCode = Mf.run(new String[] { "simulate", "--config", EXAMPLE_CONFIG.toString(), "--seconds", "10" },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(exitCode).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("summary: 10 simulated s, seed 42");
    }

    @Test
    void shouldPrintTheSameBytesForTheSameSeed()
    {
        final Result first = run("--config", EXAMPLE_CONFIG.toString(), "--seed", "7", "--seconds", "60");
        final Result second = run("--config", EXAMPLE_CONFIG.toString(), "--seed", "7", "--seconds", "60");
        final Result other = run("--config", EXAMPLE_CONFIG.toString(), "--seed", "8", "--seconds", "60");

        assertThat(first.exitCode).isZero();
        assertThat(second.out).isEqualTo(first.out);
        assertThat(other.out).isNotEqualTo(first.out);
        assertThat(first.out).contains("summary: 60 simulated s, seed 7");
    }

    @Test
    void shouldMeetMoreSlosWithCeilingsOnInTheBundledProfile() throws InvalidConfigurationException
    {
        final LoadedConfig config = ConfigLoader.load(EXAMPLE_CONFIG);
        final SimulationProfile profile = ProfileReader.read(EXAMPLE_PROFILE);

        final SimulationReport on = new Simulator(config.plans(), SimulateCommand.settings(config.config().signals()),
            profile, true).run(SimulationListener.NONE);
        final SimulationReport off = new Simulator(config.plans(), SimulateCommand.settings(config.config().signals()),
            profile, false).run(SimulationListener.NONE);

        assertThat(on.requests()).isEqualTo(off.requests()).isPositive();
        assertThat(on.sloAttainment()).isGreaterThan(off.sloAttainment());
    }

    @Test
    void shouldShowTheShiftAndTheRecoveryInTheBundledRun() throws InvalidConfigurationException
    {
        final LoadedConfig config = ConfigLoader.load(EXAMPLE_CONFIG);
        final SimulationProfile profile = ProfileReader.read(EXAMPLE_PROFILE);
        final SimulationReport report = new Simulator(config.plans(), SimulateCommand.settings(config.config().signals()),
            profile).run(SimulationListener.NONE);
        final int strong = report.modelNames().indexOf("slow-strong");
        final ModelBehaviour behaviour = profile.models().get("slow-strong");

        long before = 0;
        long during = 0;
        long after = 0;
        for (final IntervalRow row : report.rows())
        {
            if (row.endS() <= behaviour.degradedFromS())
            {
                before += row.selected(strong);
            }
            else if (row.startS() >= behaviour.degradedFromS() + 10 && row.endS() <= behaviour.degradedUntilS())
            {
                during += row.selected(strong);
            }
            else if (row.startS() >= report.durationS() - 30)
            {
                after += row.selected(strong);
            }
        }
        assertThat(before).as("traffic to slow-strong before it degrades").isPositive();
        assertThat(during).as("traffic to slow-strong while degraded, once dropped").isZero();
        assertThat(after).as("traffic to slow-strong at the end, after it recovered").isPositive();
    }

    @Test
    void shouldWriteCsvAndPlot() throws IOException
    {
        final Path csv = dir.resolve("run.csv");
        final Path png = dir.resolve("run.png");

        final Result result = run("--config", EXAMPLE_CONFIG.toString(), "--seconds", "30", "--csv", csv.toString(),
            "--plot", png.toString());

        assertThat(result.exitCode).isZero();
        final List<String> lines = Files.readAllLines(csv);
        assertThat(lines.get(0)).isEqualTo(CsvReport.HEADER);
        assertThat(lines).hasSize(1 + 6 * 2);
        assertThat(lines.get(1)).startsWith("0.000,5.000,");
        final BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(1200);
        assertThat(image.getHeight()).isEqualTo(900);
    }

    @Test
    void shouldRefuseABadProfileWithExitCode2AndNothingOnStdout() throws IOException
    {
        final Path profile = dir.resolve("bad.profile.yaml");
        Files.writeString(profile, "models:\n  fast-cheap:\n    ttft_ms: 100\n    tpot_ms: 10\n");

        final Result result = run("--config", EXAMPLE_CONFIG.toString(), "--profile", profile.toString());

        assertThat(result.exitCode).isEqualTo(2);
        assertThat(result.out).isEmpty();
        assertThat(result.err).contains(profile.toString()).contains("slow-strong");
    }

    @Test
    void shouldReportARefusedConfigLikeValidateDoes() throws IOException
    {
        final Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "models:\n  - name: a\n    quality_score: .nan\n");

        final Result result = run("--config", config.toString(), "--profile",
            EXAMPLE_PROFILE.toString());

        assertThat(result.exitCode).isEqualTo(2);
        assertThat(result.out).isEmpty();
        assertThat(result.err).contains(config + ":3:20: models[0].quality_score: must be a finite number, got .nan\n")
            .endsWith(config + ": refused, 2 problems\n");
    }

    @Test
    void shouldSayWhichProfileItLookedForWhenTheConfigHasNoSibling() throws IOException
    {
        final Path config = Files.copy(EXAMPLE_CONFIG, dir.resolve("my.yaml"));

        final Result result = run("--config", config.toString());

        assertThat(result.exitCode).isEqualTo(2);
        assertThat(result.out).isEmpty();
        assertThat(result.err).isEqualTo("simulate: no traffic profile for " + config + ": --profile was not given and " +
            dir.resolve("my.profile.yaml") + " (NAME.profile.yaml beside the configuration) does not exist; write one " +
            "(see examples/router.profile.yaml and docs/configuration.md) and pass it with --profile FILE\n");
    }

    @Test
    void shouldLocateAProfilesUnknownModelAndSuggestTheConfigurationsOne() throws IOException
    {
        final String bundled = Files.readString(EXAMPLE_PROFILE);
        final Path profile = Files.writeString(dir.resolve("typo.profile.yaml"),
            bundled.replace("  slow-strong:", "  slow-strnog:"));
        final int line = (int)bundled.substring(0, bundled.indexOf("  slow-strong:")).chars().filter(c -> c == '\n')
            .count() + 1;

        final Result result = run("--config", EXAMPLE_CONFIG.toString(), "--profile", profile.toString());

        assertThat(result.exitCode).isEqualTo(2);
        assertThat(result.out).isEmpty();
        assertThat(result.err).contains(profile + ":" + line + ":3: models.slow-strnog: unknown model \"slow-strnog\": " +
            "the configuration has no such model (did you mean slow-strong?)")
            .contains("no behaviour for model \"slow-strong\" of the configuration");
    }

    @Test
    void shouldSuggestTheNearestDecisionOfAProfileOrListTheConfigurationsDecisions() throws IOException
    {
        final String bundled = Files.readString(EXAMPLE_PROFILE);
        final Path profile = Files.writeString(dir.resolve("decisions.profile.yaml"),
            bundled.replace("  fast_chat: 0.6", "  fast_caht: 0.3\n  zz: 0.3"));
        final int line = (int)bundled.substring(0, bundled.indexOf("  fast_chat: 0.6")).chars().filter(c -> c == '\n')
            .count() + 1;

        final Result result = run("--config", EXAMPLE_CONFIG.toString(), "--profile", profile.toString());

        assertThat(result.exitCode).isEqualTo(2);
        assertThat(result.out).isEmpty();
        assertThat(result.err).contains(profile + ":" + line + ":3: decisions.fast_caht: unknown decision " +
            "\"fast_caht\": the configuration has no such decision (did you mean fast_chat?)")
            .contains(profile + ":" + (line + 1) + ":3: decisions.zz: unknown decision \"zz\": the configuration " +
            "has no such decision (the configuration's decisions: quality_answers, fast_chat, priced_by_mix, " +
            "best_quality_then_fast)");
    }

    @Test
    void shouldWriteAJpegForAJpgNameAndRefuseAnotherExtensionBeforeRunning() throws IOException
    {
        final Path jpg = dir.resolve("run.jpg");

        final Result result = run("--config", EXAMPLE_CONFIG.toString(), "--seconds", "10", "--plot", jpg.toString());

        assertThat(result.exitCode).isZero();
        final byte[] bytes = Files.readAllBytes(jpg);
        // JPEG's start-of-image marker, not PNG's signature.
        assertThat(bytes[0] & 0xFF).isEqualTo(0xFF);
        assertThat(bytes[1] & 0xFF).isEqualTo(0xD8);
        assertThat(ImageIO.read(jpg.toFile()).getWidth()).isEqualTo(1200);

        final Path gif = dir.resolve("run.gif");
        final Result refused = run("--config", EXAMPLE_CONFIG.toString(), "--seconds", "10", "--plot", gif.toString());
        assertThat(refused.exitCode).isEqualTo(2);
        assertThat(refused.out).isEmpty();
        assertThat(refused.err).isEqualTo("--plot: cannot write " + gif + ": the chart is written as PNG (.png) or " +
            "JPEG (.jpg, .jpeg); name the file with one of these extensions\n");
        assertThat(gif).doesNotExist();
    }

    @Test
    void shouldRefuseAMissingConfigWithExitCode2()
    {
        final Result result = run("--config", dir.resolve("absent.yaml").toString(), "--profile",
            EXAMPLE_PROFILE.toString());

        assertThat(result.exitCode).isEqualTo(2);
        assertThat(result.out).isEmpty();
        assertThat(result.err).contains("absent.yaml");
    }

    private static Result run(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int exitCode = new CommandLine(new SimulateCommand())
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args);
        return new Result(exitCode, out.toString(), err.toString());
    }

    private static final class Result
    {
        final int exitCode;
        final String out;
        final String err;

        Result(final int exitCode, final String out, final String err)
        {
            this.exitCode = exitCode;
            this.out = out;
            this.err = err;
        }
    }
}
