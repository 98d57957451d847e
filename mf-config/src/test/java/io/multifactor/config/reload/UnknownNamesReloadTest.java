package io.multifactor.config.reload;

import io.multifactor.api.ConfigProblem;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.yaml.InputLimits;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file just under the size limit that references thousands of undefined 64-character model names, each close to a
 * defined one: the worst case for "did you mean" hints. Reload is synchronized (it holds up the watcher), so it must
 * stay well under a second.
 */
class UnknownNamesReloadTest
{
    private static final int NAMES = 6_800;

    @TempDir
    Path dir;

    // Every name shares a 58-character start: each comparison runs the whole band, as near names do.
    private static String defined(final int i)
    {
        return "model-of-the-fleet-with-a-rather-long-and-common-name-xyz-" + String.format("%06d", i);
    }

    private static String unknown(final int i)
    {
        return "modal-of-the-fleet-with-a-rather-long-and-common-name-xyz-" + String.format("%06d", i);
    }

    private static byte[] file(final boolean unknownReferences)
    {
        final StringBuilder yaml = new StringBuilder("models:\n");
        for (int i = 0; i < NAMES; i++)
        {
            yaml.append("- name: ").append(defined(i)).append('\n');
        }
        yaml.append("decisions:\n- name: d\n  modelRefs:\n");
        for (int i = 0; i < NAMES; i++)
        {
            yaml.append("  - model: ").append(unknownReferences ? unknown(i) : defined(i)).append('\n');
        }
        return yaml.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldValidateThousandsOfUnknownNamesWithinASecond() throws Exception
    {
        assertThat(defined(0)).hasSize(64);
        final byte[] bytes = file(true);
        assertThat(bytes.length).isLessThanOrEqualTo(InputLimits.MAX_FILE_BYTES);
        final Path big = Files.write(dir.resolve("big.yaml"), bytes);
        // The same size with every reference defined: what reading and checking such a file costs without hints.
        final Path known = Files.write(dir.resolve("known.yaml"), file(false));
        final Path small = Files.writeString(dir.resolve("router.yaml"),
            "models:\n- name: a\ndecisions:\n- name: d\n  modelRefs:\n  - model: a\n");

        final LoadedConfig loaded = ConfigLoader.load(small);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).clock(new CachedNanoClock())
            .settings(loaded.signalSettings()).build();
            ConfigReloader reloader = new ConfigReloader(engine))
        {
            long bestMs = Long.MAX_VALUE;
            long baselineMs = Long.MAX_VALUE;
            ReloadResult result = null;
            for (int run = 0; run < 3; run++)
            {
                long startNs = System.nanoTime();
                assertThat(reloader.reload(known).applied()).isFalse();
                final long knownMs = (System.nanoTime() - startNs) / 1_000_000;
                startNs = System.nanoTime();
                result = reloader.reload(big);
                final long tookMs = (System.nanoTime() - startNs) / 1_000_000;
                System.out.println("reload of " + bytes.length + " bytes, " + NAMES + " defined and " + NAMES +
                    " unknown 64-character names: " + tookMs + " ms; every name defined: " + knownMs + " ms (run " +
                    (run + 1) + ")");
                bestMs = Math.min(bestMs, tookMs);
                baselineMs = Math.min(baselineMs, knownMs);
            }

            assertThat(result.applied()).isFalse();
            final List<ConfigProblem> problems = result.problems();
            final long unknown = problems.stream().filter(p -> p.message().startsWith("unknown model")).count();
            final long hinted = problems.stream().filter(p -> p.message().contains("did you mean")).count();
            System.out.println(unknown + " unknown names reported, " + hinted + " with a hint");
            // Every unknown name is still reported; the first ones still get their hint.
            assertThat(unknown).isEqualTo(NAMES);
            assertThat(problems).anySatisfy(p -> assertThat(p.message()).isEqualTo("unknown model \"" + unknown(0) +
                "\" (did you mean " + defined(0) + "?)"));
            // Warm (the first run pays for class loading and JIT), under the 1 s target; on a machine so loaded that
            // reading the file alone takes a good part of it, the hints may cost at most twice the reading.
            assertThat(bestMs).isLessThan(Math.max(1_000, 3 * baselineMs));
            assertThat(engine.plans().modelCount()).isEqualTo(1);
        }
    }
}
