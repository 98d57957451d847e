package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Seeded, deterministic fuzzing: mutated configurations (deleted, duplicated and swapped lines, swapped value types,
 * renamed keys, random bytes, truncation, and inputs at and past the limits: long names and values, deep nesting,
 * tabs, aliases) of both formats are each either accepted or refused with located problems, within 1 s of CPU time;
 * nothing but {@link InvalidConfigurationException} escapes, not even an {@link Error}. Prints the counts and the
 * slowest case.
 */
class ConfigFuzzTest
{
    /** Cases per run; {@code -Dmf.fuzz.cases=10000} for a longer run. */
    private static final int CASES = Integer.getInteger("mf.fuzz.cases", 2_500);
    private static final long SEED = Long.getLong("mf.fuzz.seed", 20261129L);
    private static final long MAX_CPU_NS = TimeUnit.SECONDS.toNanos(1);
    private static final String[] VALUES = {
        "0", "-1", "1.5", "-0.0", "101", "1e400", ".nan", ".inf", "-.inf", "true", "null", "~", "\"text\"", "[]", "{}",
        "[1, 2]", "{a: 1}", "60s", "0ms", "99999999999999999999999", "cheapest", "fail", "multi_factor", "&a 1", "*a",
        "'", "\"", "[", "{", "- x", "a: b: c", "0x1F", "1_000", "|\n  block", "!!binary AAAA", "é", "\u0000", "1us",
        "lexicographic", "random", "[quality, cost]", "{prompt: 3, completion: 1}", "\t"
    };

    @Test
    void shouldEitherAcceptOrRefuseWithLocatedProblemsForEveryMutation() throws IOException
    {
        final SplittableRandom random = new SplittableRandom(SEED);
        final String[] seeds = {
            ConfigRefusalTest.VALID,
            DesignSampleTest.SECTION_3_SAMPLE.replace("decisions:\n", DesignSampleTest.ECONOMY_MODEL + "decisions:\n"),
            resource("vsr/router-v0.3.yaml"),
            resource("vsr/router-helm-values.yaml"),
            VsrConfigTest.RECIPES_ONLY
        };
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int accepted = 0;
        int refused = 0;
        long problemCount = 0;
        long slowestCpuNs = -1;
        long slowestWallNs = 0;
        int slowestCase = -1;
        String slowestOutcome = "";
        byte[] slowestInput = new byte[0];
        final long startNs = System.nanoTime();
        for (int i = 0; i < CASES; i++)
        {
            final byte[] input = mutate(seeds[i % seeds.length], random);
            final long cpu0 = threads.getCurrentThreadCpuTime();
            final long wall0 = System.nanoTime();
            String outcome;
            try
            {
                ConfigLoader.load("fuzz.yaml", input, null);
                accepted++;
                outcome = "accepted";
            }
            catch (final InvalidConfigurationException ex)
            {
                refused++;
                problemCount += ex.problems().size();
                assertThat(ex.problems()).isNotEmpty();
                for (final ConfigProblem problem : ex.problems())
                {
                    if (!"fuzz.yaml".equals(problem.file()) || problem.line() < 1 || problem.column() < 1 ||
                        problem.message().isBlank() || problem.toString().length() > 1_000)
                    {
                        fail("case " + i + ": unlocated or oversized problem " + problem + "\n--- input ---\n" +
                            show(input));
                    }
                }
                outcome = "refused: " + ex.problems().get(0);
            }
            catch (final Throwable ex)
            {
                throw new AssertionError("case " + i + " threw " + ex + "\n--- input ---\n" + show(input), ex);
            }
            final long cpuNs = threads.getCurrentThreadCpuTime() - cpu0;
            final long wallNs = System.nanoTime() - wall0;
            if (cpuNs > slowestCpuNs)
            {
                slowestCpuNs = cpuNs;
                slowestWallNs = wallNs;
                slowestCase = i;
                slowestOutcome = outcome;
                slowestInput = input;
            }
        }
        System.out.printf(Locale.ROOT, "ConfigFuzzTest: %d mutated configurations (seed %d) in %.1f s: %d accepted, " +
            "%d refused with %d located problems; slowest case #%d: %.1f ms CPU (%.1f ms wall), %d bytes, %s%n",
            CASES, SEED, (System.nanoTime() - startNs) / 1e9, accepted, refused, problemCount, slowestCase,
            slowestCpuNs / 1e6, slowestWallNs / 1e6, slowestInput.length, shorten(slowestOutcome));
        assertThat(slowestCpuNs).as("CPU time of the slowest case #" + slowestCase).isLessThanOrEqualTo(MAX_CPU_NS);
        assertThat(accepted + refused).isEqualTo(CASES);
        assertThat(refused).as("refused").isGreaterThan(CASES / 4);
        assertThat(accepted).as("accepted").isGreaterThan(CASES / 50);
    }

    private static String shorten(final String text)
    {
        final String oneLine = text.replace('\n', ' ');
        return oneLine.length() <= 160 ? oneLine : oneLine.substring(0, 160) + "...";
    }

    private static String resource(final String name) throws IOException
    {
        try (InputStream in = ConfigFuzzTest.class.getClassLoader().getResourceAsStream(name))
        {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String show(final byte[] input)
    {
        return new String(input, StandardCharsets.UTF_8);
    }

    private static byte[] mutate(final String seed, final SplittableRandom random)
    {
        final List<String> lines = new ArrayList<>(Arrays.asList(seed.split("\n", -1)));
        final int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++)
        {
            final int at = random.nextInt(lines.size());
            switch (random.nextInt(12))
            {
                case 8:
                    // A name or value around the limits: a little past the name limit, or past the value limit.
                    lines.set(at, replaceValue(lines.get(at), random.nextInt(4) != 0 ?
                        "n".repeat(250 + random.nextInt(20)) : "v".repeat(65_530 + random.nextInt(20))));
                    break;
                case 9:
                    // Nesting around the depth limit.
                    final int depth = 55 + random.nextInt(20);
                    lines.set(at, replaceValue(lines.get(at), random.nextBoolean() ?
                        "[".repeat(depth) + "]".repeat(depth) : "{a: ".repeat(depth) + "1" + "}".repeat(depth)));
                    break;
                case 10:
                    lines.add(at, "\t" + lines.get(at));
                    break;
                case 11:
                    // Many copies of one line: a long file of repeated entries.
                    final int copies = 20 + random.nextInt(100);
                    for (int c = 0; c < copies; c++)
                    {
                        lines.add(at, lines.get(at));
                    }
                    break;
                case 0:
                    lines.remove(at);
                    if (lines.isEmpty())
                    {
                        lines.add("");
                    }
                    break;
                case 1:
                    lines.add(at, lines.get(at));
                    break;
                case 2:
                    final int other = random.nextInt(lines.size());
                    final String swap = lines.get(at);
                    lines.set(at, lines.get(other));
                    lines.set(other, swap);
                    break;
                case 3:
                    lines.set(at, replaceValue(lines.get(at), VALUES[random.nextInt(VALUES.length)]));
                    break;
                case 4:
                    lines.set(at, renameKey(lines.get(at), random));
                    break;
                case 5:
                    lines.set(at, (random.nextBoolean() ? " " : "") + lines.get(at).stripLeading());
                    break;
                case 6:
                    final String line = lines.get(at);
                    final int cut = line.isEmpty() ? 0 : random.nextInt(line.length());
                    lines.set(at, line.substring(0, cut));
                    break;
                default:
                    lines.set(at, lines.get(at) + VALUES[random.nextInt(VALUES.length)]);
                    break;
            }
        }
        byte[] bytes = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
        if (random.nextInt(6) == 0)
        {
            bytes = bytes.clone();
            final int flips = 1 + random.nextInt(4);
            for (int f = 0; f < flips && bytes.length > 0; f++)
            {
                bytes[random.nextInt(bytes.length)] = (byte)random.nextInt(256);
            }
        }
        if (random.nextInt(10) == 0)
        {
            bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
        }
        return bytes;
    }

    private static String replaceValue(final String line, final String value)
    {
        final int colon = line.indexOf(": ");
        return colon < 0 ? line + value : line.substring(0, colon + 2) + value;
    }

    private static String renameKey(final String line, final SplittableRandom random)
    {
        final int colon = line.indexOf(':');
        if (colon <= 0)
        {
            return line;
        }
        final StringBuilder sb = new StringBuilder(line);
        final int start = line.length() - line.stripLeading().length();
        final int pos = start + random.nextInt(Math.max(1, colon - start));
        if (pos < colon)
        {
            sb.setCharAt(pos, (char)('a' + random.nextInt(26)));
        }
        return sb.toString();
    }
}
