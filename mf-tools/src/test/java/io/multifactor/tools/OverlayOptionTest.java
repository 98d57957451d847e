package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code validate}, {@code explain}, {@code serve} and {@code envoy} take {@code --overlay FILE} completing a vLLM
 * Semantic Router file.
 */
class OverlayOptionTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path CONFIG = ROOT.resolve("examples/vsr-config.yaml");
    private static final Path OVERLAY = ROOT.resolve("examples/vsr-overlay.yaml");
    private static final Path REQUEST = ROOT.resolve("examples/vsr-request.yaml");

    @TempDir
    Path dir;

    @Test
    void validateShouldAcceptTheBundledOverlay()
    {
        final CliRun run = CliRun.of("validate", CONFIG.toString(), "--overlay", OVERLAY.toString());
        assertThat(run.err()).isEmpty();
        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        assertThat(run.out()).startsWith(CONFIG + ": valid (vLLM Semantic Router v0.3 configuration)\n");
    }

    @Test
    void validateShouldReportTheOverlaysProblemsInTheOverlay() throws IOException
    {
        final Path overlay = Files.writeString(dir.resolve("overlay.yaml"),
            "models:\n  - name: fast-cheep\n    server: vllm\n");
        final CliRun run = CliRun.of("validate", CONFIG.toString(), "--overlay", overlay.toString());
        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.err()).contains(overlay + ":2:11: models[0].name: unknown model \"fast-cheep\"")
            .contains("(did you mean fast-cheap?)");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void explainShouldRunOnAVsrFileWithItsOverlay()
    {
        final CliRun run = CliRun.of("explain", "--config", CONFIG.toString(), "--overlay", OVERLAY.toString(),
            "--scenario", REQUEST.toString(), "--json");
        assertThat(run.err()).isEmpty();
        assertThat(run.exit()).isEqualTo(ExitCodes.OK);
        assertThat(run.out()).contains("\"outcome\"");
    }

    @Test
    void serveAndEnvoyShouldReadTheOverlayAndRefuseABrokenOneBeforeServing() throws IOException
    {
        final Path overlay = Files.writeString(dir.resolve("overlay.yaml"),
            "models:\n  - name: fast-cheep\n    server: vllm\n");
        for (final String[] command : new String[][] {
            {"serve", "--config", CONFIG.toString(), "--overlay", overlay.toString(), "--port", "0"},
            {"envoy", "--config", CONFIG.toString(), "--overlay", overlay.toString(), "--port", "0"}})
        {
            final CliRun run = CliRun.of(command);
            assertThat(run.exit()).as(command[0]).isEqualTo(ExitCodes.INVALID_INPUT);
            assertThat(run.err()).as(command[0])
                .contains(overlay + ":2:11: models[0].name: unknown model \"fast-cheep\"");
            assertThat(run.out()).as(command[0]).isEmpty();
        }
    }
}
