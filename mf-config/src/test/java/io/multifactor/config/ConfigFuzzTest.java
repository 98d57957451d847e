package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Seeded, deterministic fuzzing: mutated configurations (deleted, duplicated and swapped lines, swapped value types,
 * renamed keys, random bytes, truncation) are each either accepted or refused with located problems; nothing else
 * escapes.
 */
class ConfigFuzzTest
{
    private static final int CASES = 1_500;
    private static final String[] VALUES = {
        "0", "-1", "1.5", "-0.0", "101", "1e400", ".nan", ".inf", "-.inf", "true", "null", "~", "\"text\"", "[]", "{}",
        "[1, 2]", "{a: 1}", "60s", "0ms", "99999999999999999999999", "cheapest", "fail", "multi_factor", "&a 1", "*a",
        "'", "\"", "[", "{", "- x", "a: b: c", "0x1F", "1_000", "|\n  block", "!!binary AAAA", "é", "\u0000"
    };

    @Test
    void shouldEitherAcceptOrRefuseWithLocatedProblemsForEveryMutation()
    {
        final SplittableRandom random = new SplittableRandom(20261129L);
        final String[] seeds = {
            ConfigRefusalTest.VALID,
            DesignSampleTest.SECTION_3_SAMPLE.replace("decisions:\n", DesignSampleTest.ECONOMY_MODEL + "decisions:\n"),
            VsrConfigTest.RECIPES_ONLY
        };
        int accepted = 0;
        int refused = 0;
        for (int i = 0; i < CASES; i++)
        {
            final byte[] input = mutate(seeds[i % seeds.length], random);
            try
            {
                ConfigLoader.load("fuzz.yaml", input, null);
                accepted++;
            }
            catch (final InvalidConfigurationException ex)
            {
                refused++;
                assertThat(ex.problems()).isNotEmpty();
                for (final ConfigProblem problem : ex.problems())
                {
                    if (!"fuzz.yaml".equals(problem.file()) || problem.line() < 1 || problem.column() < 1 ||
                        problem.message().isBlank())
                    {
                        fail("case " + i + ": unlocated problem " + problem + "\n--- input ---\n" + show(input));
                    }
                }
            }
            catch (final RuntimeException ex)
            {
                throw new AssertionError("case " + i + " threw " + ex + "\n--- input ---\n" + show(input), ex);
            }
        }
        assertThat(accepted + refused).isEqualTo(CASES);
        assertThat(refused).as("refused").isGreaterThan(CASES / 4);
        assertThat(accepted).as("accepted").isGreaterThan(CASES / 50);
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
            switch (random.nextInt(8))
            {
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
