package io.multifactor.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} process for tests: the one on the PATH when there is one, else the Linux binary shipped
 * inside {@code com.github.codemonstur:embedded-redis} (extracted to a temporary file and made executable). Listens on
 * a free loopback port, persistence off; {@link #kill()} sends SIGKILL (an outage), {@link #start()} starts it again on
 * the same port.
 * <p>
 * Other modules' tests use it too (mf-redis's test jar), to run a replica against a real Redis.
 * <p>
 * This class is not threadsafe: one test class drives it.
 */
public final class RedisServer implements AutoCloseable
{
    private static final String[] EMBEDDED = {
        "/redis-server-6.2.6-v5-linux-amd64", "/redis-server-6.2.7-linux-arm64", "/redis-server-6.2.7-linux-386"};

    private final Path binary;
    private final int port;
    private final String password;
    private Process process;

    /**
     * A server on a free loopback port, not started yet.
     *
     * @param password the password it requires, or {@code null} for none.
     */
    public RedisServer(final String password)
    {
        this.binary = binary();
        this.port = freePort();
        this.password = password;
    }

    int port()
    {
        return port;
    }

    /** @return the URL of the server, with its password when it has one. */
    public String url()
    {
        return password == null ? "redis://127.0.0.1:" + port : "redis://:" + password + "@127.0.0.1:" + port;
    }

    String urlWithoutPassword()
    {
        return "redis://127.0.0.1:" + port;
    }

    /** @return this server, started and answering {@code PING}. */
    public RedisServer start()
    {
        final List<String> command = new ArrayList<>(List.of(binary.toString(), "--port", Integer.toString(port),
            "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
        if (password != null)
        {
            command.add("--requirepass");
            command.add(password);
        }
        try
        {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + binary, ex);
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline)
        {
            if (ping())
            {
                return this;
            }
            sleep(20);
        }
        throw new IllegalStateException("redis-server did not answer on port " + port);
    }

    /** SIGSTOP: the server keeps its connections open and answers nothing until {@link #resume()}. */
    void pause()
    {
        signal("-STOP");
    }

    /** SIGCONT: a paused server goes on with what it was sent meanwhile. */
    void resume()
    {
        signal("-CONT");
    }

    private void signal(final String signal)
    {
        try
        {
            final Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0)
            {
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** SIGKILL: the server disappears without a word. */
    void kill()
    {
        if (process != null)
        {
            process.destroyForcibly();
            try
            {
                process.waitFor(5, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    @Override
    public void close()
    {
        kill();
    }

    private boolean ping()
    {
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            final String auth = password == null ? "" : "AUTH " + password + "\r\n";
            socket.getOutputStream().write((auth + "PING\r\n").getBytes(StandardCharsets.US_ASCII));
            final byte[] reply = new byte[64];
            int read = 0;
            final InputStream in = socket.getInputStream();
            while (read < reply.length)
            {
                final int n = in.read(reply, read, reply.length - read);
                if (n < 0)
                {
                    break;
                }
                read += n;
                if (new String(reply, 0, read, StandardCharsets.US_ASCII).contains("PONG"))
                {
                    return true;
                }
            }
            return false;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static Path binary()
    {
        final String path = System.getenv("PATH");
        if (path != null)
        {
            for (final String dir : path.split(":"))
            {
                final Path candidate = Path.of(dir, "redis-server");
                if (Files.isExecutable(candidate))
                {
                    return candidate;
                }
            }
        }
        return extractEmbedded();
    }

    static synchronized Path extractEmbedded()
    {
        final String arch = System.getProperty("os.arch");
        final String resource = arch.contains("aarch64") || arch.contains("arm64") ? EMBEDDED[1] :
            arch.contains("64") ? EMBEDDED[0] : EMBEDDED[2];
        try (InputStream in = RedisServer.class.getResourceAsStream(resource))
        {
            if (in == null)
            {
                throw new IllegalStateException("no " + resource + " in the embedded-redis artifact");
            }
            final Path file = Files.createTempFile("mf-redis-server-", "");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
            return file;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot extract " + resource, ex);
        }
    }

    private static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
