package io.multifactor.tools;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.PrefixCaching;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Prefix caching in the command line: the backends profile's {@code prefix_cache}, and {@code simulate}'s servers
 * block and chart panels on the bundled 8-backend example ({@code load}'s hit rate: {@link LoadCommandsTest}).
 */
@Timeout(180)
class PrefixCommandsTest
{
    @TempDir
    Path dir;

    @Test
    void shouldReadAPrefixCacheInABackendsProfileAndLocateABadValue() throws Exception
    {
        final BackendsProfile profile = BackendsProfileReader.read("b.yaml", "models:\n  m:\n    ttft_ms: 5\n" +
            "    tpot_ms: 1\n    prefix_cache: {gpu_blocks: 64, prefill_tokens_per_s: 2000}\n  n:\n    ttft_ms: 5\n" +
            "    tpot_ms: 1\n");
        assertThat(profile.models().get(0).prefixCachingOrNull()).isEqualTo(new PrefixCaching(16, 64, 2000.0));
        assertThat(profile.models().get(1).prefixCachingOrNull()).isNull();
        final InvalidConfigurationException refused = catchThrowableOfType(InvalidConfigurationException.class,
            () -> BackendsProfileReader.read("b.yaml", "models:\n  m:\n    ttft_ms: 5\n    tpot_ms: 1\n" +
                "    prefix_cache: {gpu_blocks: 0, block_size: 16}\n"));
        assertThat(refused.problems()).extracting(Object::toString)
            .anySatisfy(p -> assertThat(p).startsWith("b.yaml:5:").contains("models.m.prefix_cache.gpu_blocks"))
            .anySatisfy(p -> assertThat(p).contains("models.m.prefix_cache.block_size"));
    }

    @Test
    void shouldSimulateTheEightServersOfTheSharedPrefixExampleAndDrawThem() throws IOException
    {
        final Path plot = dir.resolve("servers.png");
        final CliRun run = CliRun.of("simulate", "--config", "../examples/prefix.yaml", "--profile",
            "../examples/prefix-shared.profile.yaml", "--plot", plot.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        // Two more panels than a run without servers: each backend's hit rate and p90 TTFT.
        assertThat(ImageIO.read(plot.toFile()).getHeight()).isEqualTo(1400);
        assertThat(run.out()).contains("servers (prefix hit rate = the servers' cached / queried prompt tokens):");
        for (int b = 1; b <= 8; b++)
        {
            assertThat(run.out()).containsPattern("\\n  m +m-" + b + " +\\d+ +\\d+\\.\\d% +\\d+\\.\\d +\\d+\\.\\d\\n");
        }
        final Matcher all = Pattern.compile("\\(all\\) +prefix hit rate (\\d+\\.\\d)%, input (\\d+) tokens/s")
            .matcher(run.out());
        assertThat(all.find()).isTrue();
        // 8 prompts of 3,000 tokens over servers caching 8,192 tokens each: some hits, far from all.
        assertThat(Double.parseDouble(all.group(1))).isBetween(5.0, 60.0);
        // About 20 requests/s of 3,100 prompt tokens.
        assertThat(Long.parseLong(all.group(2))).isBetween(50_000L, 75_000L);
    }
}
