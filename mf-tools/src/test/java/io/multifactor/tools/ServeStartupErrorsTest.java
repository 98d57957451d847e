package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code mf serve} refuses to start with exit 2 and a message that names what failed, and only that. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServeStartupErrorsTest
{
    @TempDir
    Path dir;

    Path config() throws Exception
    {
        return Files.writeString(dir.resolve("ok.yaml"),
            "models:\n  - name: a\ndecisions:\n  - name: d\n    modelRefs: [{model: a}]\n");
    }

    @Test
    void shouldExit2NamingThePortWhenItIsInUse() throws Exception
    {
        try (ServerSocket taken = new ServerSocket())
        {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final int port = taken.getLocalPort();
            final CliRun run = CliRun.of("serve", "--config", config().toString(), "--port", Integer.toString(port),
                "--access-log", "off");
            assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).isEqualTo("mf serve: cannot listen on 127.0.0.1:" + port + " (--port " + port +
                "): address already in use" + System.lineSeparator());
        }
    }

    @Test
    void shouldNameOnlyTheInvalidOptionAndItsValue() throws Exception
    {
        final String file = config().toString();
        assertThat(CliRun.of("serve", "--config", file, "--drain-delay", "soon").err())
            .isEqualTo("mf serve: invalid option --drain-delay soon (a duration such as 0s, 500ms, 5s)" +
                System.lineSeparator());
        assertThat(CliRun.of("serve", "--config", file, "--idle-timeout", "0s").err())
            .isEqualTo("mf serve: invalid option --idle-timeout 0s (a duration such as 500ms, 60s, 5m)" +
                System.lineSeparator());
        assertThat(CliRun.of("serve", "--config", file, "--port", "70000").err())
            .isEqualTo("mf serve: invalid option --port 70000 (0..65535)" + System.lineSeparator());
        final CliRun admin = CliRun.of("serve", "--config", file, "--admin-port", "-5");
        assertThat(admin.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(admin.err()).isEqualTo("mf serve: invalid option --admin-port -5 (0..65535)" +
            System.lineSeparator());
        final CliRun tls = CliRun.of("serve", "--config", file, "--tls-cert", "cert.pem");
        assertThat(tls.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(tls.err()).isEqualTo("mf serve: invalid option --tls-cert cert.pem (--tls-cert and --tls-key go " +
            "together)" + System.lineSeparator());
        final CliRun log = CliRun.of("serve", "--config", file, "--access-log", dir.resolve("no/such/dir/log").toString());
        assertThat(log.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(log.err()).startsWith("mf serve: invalid option --access-log " + dir.resolve("no/such/dir/log"));
    }

    @Test
    void shouldNameTheKeysFileAndLineButNeverTheKey() throws Exception
    {
        final Path keys = Files.writeString(dir.resolve("keys.txt"), "# keys\nsk-good\nsk-very-secret oops\n");
        final CliRun run = CliRun.of("serve", "--config", config().toString(), "--api-keys", keys.toString());
        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("mf serve: " + keys + ":3: after the key, only decisions=a,b may follow" +
            System.lineSeparator()).doesNotContain("sk-very-secret");
        final CliRun missing = CliRun.of("serve", "--config", config().toString(), "--api-keys",
            dir.resolve("absent.txt").toString());
        assertThat(missing.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(missing.err()).startsWith("mf serve: invalid option --api-keys " + dir.resolve("absent.txt"));
    }

    @Test
    void shouldNameTheTlsFilesThatAreNotPem() throws Exception
    {
        final Path cert = Files.writeString(dir.resolve("c.pem"), "not a certificate");
        final Path key = Files.writeString(dir.resolve("k.pem"), "not a key");
        final CliRun run = CliRun.of("serve", "--config", config().toString(), "--tls-cert", cert.toString(),
            "--tls-key", key.toString());
        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.err()).startsWith("mf serve: --tls-cert " + cert + " / --tls-key " + key +
            ": not a PEM certificate chain and its private key");
    }
}
