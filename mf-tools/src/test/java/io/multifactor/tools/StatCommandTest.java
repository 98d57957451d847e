package io.multifactor.tools;

import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class StatCommandTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void shouldPrintTablesPerDecisionAndModelFromACountersFile()
    {
        final Path file = dir.resolve("engine.counters");
        final Plans plans = new PlansBuilder().model("premium", 0.9, 10.0).model("economy", 0.1, 1.0)
            .decision("chat").candidates("premium", "economy").weights(1.0, 0.0, 0.0, 0.0).slo(100.0, 0, 0, 0).add()
            .build();
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).countersFile(file).build())
        {
            final Selection out = new Selection();
            engine.select(engine.decisionId("chat"), null, out);
            engine.select(engine.decisionId("chat"), null, out);
            engine.recordTpotMs(engine.modelId("premium"), 150.0);
            engine.recordTpotMs(engine.modelId("economy"), 42.0);
            engine.refreshNow();
            engine.select(engine.decisionId("chat"), null, out);
            engine.begin(engine.modelId("economy"));
            engine.refreshNow();

            final CliRun run = CliRun.of("stat", "--counters-file", file.toString());
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains(
                "DECISION  SELECTIONS  SCORED  FALLBACK_CHEAPEST  FALLBACK_FIRST  FAILED",
                "chat               3       3                  0               0       0",
                "chat      economy         1  33.3%",
                "chat      premium         2  66.7%",
                "reloads: applied 0, refused 0   fleet: exchanges done 0, failed 0, remote replicas 0");
            assertThat(run.out()).containsPattern("economy +1 +p95=42\\.\\d +p95=- +0 +- +0 +0 +0");
            assertThat(run.out()).containsPattern("premium +0 +p95=15\\d\\.\\d +p95=- +1 +tpot=1 +0 +0 +0");
        }
    }

    @Test
    void shouldRefuseAMissingFileOrABadPeriod()
    {
        final CliRun missing = CliRun.of("stat", "--counters-file", dir.resolve("nope").toString());
        assertThat(missing.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(missing.out()).isEmpty();
        assertThat(missing.err()).contains("nope does not exist");

        final CliRun period = CliRun.of("stat", "--counters-file", dir.toString(), "--watch", "soon");
        assertThat(period.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(period.err()).contains("--watch: expected a period such as 1s or 500ms");
        assertThat(StatCommand.periodMs("1s")).isEqualTo(1_000);
        assertThat(StatCommand.periodMs("250ms")).isEqualTo(250);
        assertThat(StatCommand.periodMs("2")).isEqualTo(2_000);
    }

    @Test
    void shouldReadARunningSimulationFromASecondJvm() throws Exception
    {
        final Path file = dir.resolve("sim.counters");
        final Process simulation = mf(dir.resolve("sim.out"), dir.resolve("sim.err"),
            "simulate", "--counters-file", file.toString(), "--seconds", "86400");
        try
        {
            String out = "";
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (System.nanoTime() - deadlineNs < 0)
            {
                if (Files.exists(file))
                {
                    out = stat(file, "--watch", "300ms", "--iterations", "2");
                    if (selections(out).size() == 2 && selections(out).get(0) > 0)
                    {
                        break;
                    }
                }
                Thread.sleep(200);
            }
            assertThat(simulation.isAlive()).as("the simulation still runs while stat reads").isTrue();
            final List<Long> selections = selections(out);
            assertThat(selections).as(out).hasSize(2);
            assertThat(selections.get(1)).as("counts grow between two tables of --watch").isGreaterThan(selections.get(0));
            assertThat(out).contains("== " + file + " at ", "MODEL", "fast-cheap", "slow-strong", "fast_chat");
        }
        finally
        {
            simulation.destroy();
            simulation.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The SELECTIONS of decision quality_answers in each table. */
    private static List<Long> selections(final String out)
    {
        final List<Long> found = new ArrayList<>();
        final Matcher matcher = Pattern.compile("(?m)^quality_answers +(\\d+) ").matcher(out);
        while (matcher.find())
        {
            found.add(Long.parseLong(matcher.group(1)));
        }
        return found;
    }

    private String stat(final Path file, final String... more) throws IOException, InterruptedException
    {
        final List<String> args = new ArrayList<>(List.of("stat", "--counters-file", file.toString()));
        args.addAll(List.of(more));
        final Path out = Files.createTempFile(dir, "stat", ".out");
        final Path err = Files.createTempFile(dir, "stat", ".err");
        final Process process = mf(out, err, args.toArray(new String[0]));
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(Files.readString(err)).isZero();
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private static Process mf(final Path out, final Path err, final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>(List.of("bash", ROOT.resolve("bin/mf").toString()));
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile())
            .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("MF_CLASSPATH", System.getProperty("java.class.path"));
        final Process process = builder.start();
        process.getOutputStream().close();
        return process;
    }
}
