package io.multifactor.tools;

import io.multifactor.api.Selection;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.metrics.CountersFileLayout;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.reliability.EjectionPolicy;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerKind;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
            // The file is the engine's copy, written by the refresh agent every 250 ms and by refreshNow.
            engine.refreshNow();

            final CliRun run = CliRun.of("stat", "--counters-file", file.toString());
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).startsWith("engine pid " + ProcessHandle.current().pid() + ", started ")
                .containsPattern("heartbeat \\d+\\.\\d s ago: alive\n");
            assertThat(run.out()).contains(
                "DECISION  SELECTIONS  SCORED  FALLBACK_CHEAPEST  FALLBACK_FIRST  FAILED  INELIGIBLE  SHED",
                "chat               3       3                  0               0       0           0     0",
                "chat      economy         1  33.3%",
                "chat      premium         2  66.7%",
                "reloads: applied 0, refused 0   fleet: exchanges done 0, failed 0, remote replicas 0");
            // The lease begun without token counts weighs default_request_tokens (1000).
            assertThat(run.out()).containsPattern("economy +1 +1000 +p95=42\\.\\d +p95=- +0 +- +0 +0 +0");
            assertThat(run.out()).containsPattern("premium +0 +0 +p95=15\\d\\.\\d +p95=- +1 +tpot=1 +0 +0 +0");
        }
    }

    @Test
    void shouldShowTheModelServersQueueKvCacheFreshnessAndScrapes()
    {
        final Path file = dir.resolve("servers.counters");
        final Plans plans = new PlansBuilder().model("llama", 0.9, 10.0).model("hosted", 0.1, 1.0)
            .decision("chat").candidates("llama", "hosted").add()
            .build();
        final ServerBackend one = new ServerBackend("llama", false, "10.0.0.1", 8000, ServerKind.VLLM);
        final ServerBackend two = new ServerBackend("llama", false, "10.0.0.2", 8000, ServerKind.VLLM);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).countersFile(file)
            .serverMetrics(ServerMetricsSettings.every(500_000_000L), List.of(one, two)).build())
        {
            final int llama = engine.modelId("llama");
            engine.reportServerLoad(llama, one.key(), 12, 4, 0.95);
            engine.reportServerLoad(llama, one.key(), 12, 4, 1.5);
            engine.refreshNow();
            final CliRun run = CliRun.of("stat", "--counters-file", file.toString());
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains(
                "SERVER_MODEL  QUEUE  KV_CACHE",
                "llama            12     0.950",
                "BACKEND               FRESH  SCRAPES_OK  FAILED  REFUSED",
                "http://10.0.0.1:8000  yes             1       0        1",
                "http://10.0.0.2:8000  no              0       0        0");
            // A model without server has no server row.
            assertThat(run.out().substring(run.out().indexOf("SERVER_MODEL"))).doesNotContain("hosted");
        }
    }

    @Test
    void shouldShowEachModelsTokensInFlight()
    {
        final Path file = dir.resolve("tokens.counters");
        final Plans plans = new PlansBuilder().model("premium", 0.9, 10.0).model("economy", 0.1, 1.0)
            .decision("chat").candidates("premium", "economy").add()
            .build();
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).countersFile(file).build())
        {
            final int premium = engine.modelId("premium");
            engine.begin(premium, 12_000);
            final long ended = engine.begin(premium, 3_000);
            engine.begin(engine.modelId("economy"));
            engine.end(ended);
            engine.refreshNow();

            final CliRun run = CliRun.of("stat", "--counters-file", file.toString());
            assertThat(run.exit()).as(run.err()).isZero();
            // Each model's live leases' weights: 12,000 of the two begun on premium after the end of the other, and
            // default_request_tokens for the lease begun on economy without token counts.
            assertThat(run.out()).contains("MODEL    INFLIGHT  INFLIGHT_TOKENS  TPOT_MS");
            assertThat(run.out()).containsPattern("\npremium +1 +12000 +p95=- ");
            assertThat(run.out()).containsPattern("\neconomy +1 +1000 +p95=- ");
        }
    }

    @Test
    void shouldShowEjectedModelsWithTheirTimeLeftAndEjectionsByCause()
    {
        final Path file = dir.resolve("ejecting.counters");
        final Plans plans = new PlansBuilder().model("premium", 0.9, 10.0).model("economy", 0.1, 1.0)
            .model("plain", 0.5, 1.0)
            .reliability("premium", new EjectionPolicy(2, 30_000, 300_000, 50))
            .reliability("economy", new EjectionPolicy(2, 30_000, 300_000, 50))
            .decision("chat").candidates("premium", "economy", "plain").weights(1.0, 0.0, 0.0, 0.0).add()
            .build();
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).countersFile(file).build())
        {
            final int premium = engine.modelId("premium");
            engine.end(engine.begin(premium), 500);
            engine.end(engine.begin(premium), 0);
            engine.end(engine.begin(engine.modelId("economy")), 200);
            engine.refreshNow();

            final CliRun run = CliRun.of("stat", "--counters-file", file.toString());
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("HEALED  EJECTED", "EJECTIONS");
            assertThat(run.out()).containsPattern("premium( +\\S+){9} +(29|30)\\.\\ds_left +5xx=1 retry_after=0\n");
            assertThat(run.out()).containsPattern("economy( +\\S+){9} +- +5xx=0 retry_after=0\n");
            assertThat(run.out()).containsPattern("plain( +\\S+){9} +- +-\n");
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

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSayAnEngineKilledWithSigkillIsNotAliveAndExitFour() throws Exception
    {
        final Path file = dir.resolve("router.counters");
        final Process router = router(file);
        try
        {
            CliRun live = CliRun.of("stat", "--counters-file", file.toString());
            final long selecting = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!live.out().matches("(?s).*\nchat +[1-9].*") && System.nanoTime() - selecting < 0)
            {
                Thread.sleep(100);
                live = CliRun.of("stat", "--counters-file", file.toString());
            }
            assertThat(live.exit()).as(live.out() + live.err()).isEqualTo(ExitCodes.OK);
            assertThat(live.out()).contains("engine pid " + router.pid() + ", started ").contains("ago: alive")
                .containsPattern("\nchat +[1-9]");

            router.destroyForcibly();
            assertThat(router.waitFor(30, TimeUnit.SECONDS)).isTrue();
            CliRun dead = live;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (dead.exit() == ExitCodes.OK && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(250);
                dead = CliRun.of("stat", "--counters-file", file.toString());
            }
            assertThat(dead.exit()).as(dead.out() + dead.err()).isEqualTo(ExitCodes.NOT_ALIVE);
            assertThat(dead.out()).containsPattern("engine pid " + router.pid() + ", started \\S+, last heartbeat " +
                "\\d+\\.\\d s ago \\(more than 3 s\\): NOT ALIVE \\(it died, hangs, or runs no refresh agent; the counts " +
                "below are its last\\)").containsPattern("\nchat +[1-9]");
            assertThat(dead.err()).isEmpty();
        }
        finally
        {
            router.destroyForcibly();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldFollowAnEngineRestartUnderWatch() throws Exception
    {
        final Path file = dir.resolve("router.counters");
        final Process first = router(file);
        final AtomicReference<CliRun> watched = new AtomicReference<>();
        final Thread watcher = new Thread(() ->
            watched.set(CliRun.of("stat", "--counters-file", file.toString(), "--watch", "200ms", "--iterations", "35")));
        Process second = null;
        try
        {
            watcher.start();
            Thread.sleep(1_000);
            first.destroyForcibly();
            assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
            second = router(file);
            watcher.join(TimeUnit.SECONDS.toMillis(90));
            final CliRun run = watched.get();
            assertThat(run).as("the watch ended").isNotNull();
            assertThat(run.out()).contains("engine pid " + first.pid() + ", started ")
                .containsPattern("engine restarted: pid " + first.pid() + " started \\S+, now pid " + second.pid() +
                    " started \\S+\n");
            final String last = run.out().substring(run.out().lastIndexOf("== "));
            assertThat(last).contains("engine pid " + second.pid() + ", started ").contains("ago: alive");
            assertThat(run.exit()).as(run.out()).isEqualTo(ExitCodes.OK);
            assertThat(run.out()).doesNotContain("Exception").doesNotContain("Error");
        }
        finally
        {
            first.destroyForcibly();
            if (second != null)
            {
                second.destroyForcibly();
            }
        }
    }

    @Test
    void shouldNameAHalvedARandomOrACraftedFileAsDamagedAndExitTwo() throws IOException
    {
        final Path file = closedEngineFile();
        final long length = Files.size(file);
        final Path halved = Files.copy(file, dir.resolve("halved.counters"));
        try (RandomAccessFile raf = new RandomAccessFile(halved.toFile(), "rw"))
        {
            raf.setLength(length / 2);
        }
        final byte[] noise = new byte[(int)length];
        new SplittableRandom(11).nextBytes(noise);
        final Path random = Files.write(dir.resolve("random.counters"), noise);
        final Path crafted = Files.copy(file, dir.resolve("crafted.counters"));
        try (RandomAccessFile raf = new RandomAccessFile(crafted.toFile(), "rw"))
        {
            // The first counter's label length, in the machine's byte order, as large as an int goes.
            raf.seek(CountersFileLayout.metadataOffset(MultiFactorEngine.DEFAULT_COUNTER_CAPACITY) +
                CountersReader.LABEL_OFFSET);
            raf.write(new byte[] {(byte)0xff, (byte)0xff, (byte)0xff, (byte)0x7f});
        }

        final CliRun halvedRun = CliRun.of("stat", "--counters-file", halved.toString());
        final CliRun randomRun = CliRun.of("stat", "--counters-file", random.toString());
        final CliRun craftedRun = CliRun.of("stat", "--counters-file", crafted.toString());

        for (final CliRun run : List.of(halvedRun, randomRun, craftedRun))
        {
            assertThat(run.exit()).as(run.err()).isEqualTo(ExitCodes.INVALID_INPUT);
            assertThat(run.out()).isEmpty();
        }
        assertThat(halvedRun.err()).isEqualTo(halved + ": damaged counters file: length " + length / 2 +
            " bytes, its header says " + length + " (capacity " + MultiFactorEngine.DEFAULT_COUNTER_CAPACITY +
            "): truncated\n");
        assertThat(randomRun.err()).isEqualTo(random + ": damaged counters file: no MFCNTRS1 marker at its start " +
            "(not written by an engine of this version, or overwritten)\n");
        assertThat(craftedRun.err()).isEqualTo(crafted + ": damaged counters file: counter 0: label length " +
            "2147483647, at most 380\n");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldKeepWatchingAFileTruncatedUnderItAndSayWhatHappened() throws Exception
    {
        final Path file = closedEngineFile();
        final AtomicReference<CliRun> watched = new AtomicReference<>();
        final Thread watcher = new Thread(() ->
            watched.set(CliRun.of("stat", "--counters-file", file.toString(), "--watch", "100ms", "--iterations", "15")));
        watcher.start();
        Thread.sleep(500);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            channel.truncate(Files.size(file) / 2);
        }
        watcher.join(TimeUnit.SECONDS.toMillis(50));
        final CliRun run = watched.get();

        assertThat(run).as("the watch ended").isNotNull();
        // Closed engine: whole tables first, then the truncation, one line per table, to the end of the watch.
        assertThat(run.out()).contains("closed at ", "NOT ALIVE", "DECISION")
            .containsPattern("damaged counters file: length \\d+ bytes, its header says \\d+ \\(capacity \\d+\\): " +
                "truncated\n$");
        assertThat(run.out()).doesNotContain("Exception").doesNotContain("Error");
        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
    }

    @Test
    void shouldShowInTheDocsSampleEveryDecisionOfTheBundledConfiguration() throws Exception
    {
        final String page = Files.readString(ROOT.resolve("docs/metrics.md"));
        final String command = "$ bin/mf stat --counters-file /tmp/sim.counters\n";
        final int start = page.indexOf(command) + command.length();
        final String sample = page.substring(start, page.indexOf("```", start));
        final List<String> shown = new ArrayList<>();
        final String[] lines = sample.split("\n");
        assertThat(lines[0]).contains(": alive");
        for (int i = 3; i < lines.length && !lines[i].isEmpty(); i++)
        {
            shown.add(lines[i].substring(0, lines[i].indexOf(' ')));
        }
        final LoadedConfig bundled = ConfigLoader.load(ROOT.resolve("examples/router.yaml"));
        final List<String> decisions = new ArrayList<>();
        bundled.config().decisions().forEach(decision -> decisions.add(decision.name()));
        assertThat(shown).containsExactlyInAnyOrderElementsOf(decisions);
    }

    /** The counters file of an engine that selected once and was closed. */
    private Path closedEngineFile()
    {
        final Path file = dir.resolve("closed.counters");
        try (MultiFactorEngine engine = MultiFactorEngine.builder(new PlansBuilder().model("premium", 0.9, 10.0)
            .decision("chat").candidates("premium").add().build()).countersFile(file).build())
        {
            engine.select(engine.decisionId("chat"), null, new Selection());
        }
        return file;
    }

    /** A router in its own JVM ({@link StatEngineMain}), started and ready. */
    private static Process router(final Path file) throws IOException
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process process = new ProcessBuilder(java, "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            StatEngineMain.class.getName(), file.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        process.getOutputStream().close();
        final String ready = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
            .readLine();
        assertThat(ready).as("the router's first line").isEqualTo("ready " + process.pid());
        return process;
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
