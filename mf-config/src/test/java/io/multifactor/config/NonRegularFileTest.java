package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** A configuration path that is not a regular file (a FIFO, directly or through a link) is refused, never opened. */
class NonRegularFileTest
{
    @TempDir
    Path dir;

    private Path fifo(final String name) throws Exception
    {
        final Path fifo = dir.resolve(name);
        final Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfifo.exitValue()).isZero();
        return fifo;
    }

    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseAFifoWithoutOpeningIt() throws Exception
    {
        final Path fifo = fifo("router.yaml");
        final long startNs = System.nanoTime();
        final List<ConfigProblem> problems = refused(fifo);
        final long tookMs = (System.nanoTime() - startNs) / 1_000_000;
        System.out.println("FIFO as configuration refused in " + tookMs + " ms: " + problems);

        assertThat(problems).extracting(Object::toString).containsExactly(fifo + ": is not a regular file " +
            "(a FIFO, socket or device): only a regular file, or a link to one, is read");
    }

    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseALinkToAFifo() throws Exception
    {
        final Path fifo = fifo("pipe");
        final Path link = Files.createSymbolicLink(dir.resolve("router.yaml"), fifo);

        assertThat(refused(link)).extracting(ConfigProblem::message).containsExactly(
            "is not a regular file (a FIFO, socket or device): only a regular file, or a link to one, is read");
    }

    private static List<ConfigProblem> refused(final Path path)
    {
        final InvalidConfigurationException thrown =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ConfigLoader.load(path));
        assertThat(thrown).as("refused").isNotNull();
        return thrown.problems();
    }
}
