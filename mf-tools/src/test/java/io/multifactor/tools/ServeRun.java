package io.multifactor.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mf serve} run in-process on a thread of its own, on a free loopback port, until {@link #stop()} interrupts
 * it (as a caller stops it): its port, exit code, stdout and stderr.
 * <p>
 * This class is not threadsafe: one test drives it.
 */
final class ServeRun
{
    private final int port;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final AtomicInteger exit = new AtomicInteger(-1);
    private final Thread thread;

    private ServeRun(final String... args) throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            port = socket.getLocalPort();
        }
        final String[] all = new String[args.length + 3];
        all[0] = "serve";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--port";
        all[args.length + 2] = Integer.toString(port);
        thread = new Thread(() -> exit.set(Mf.run(all, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8))));
    }

    /**
     * @param args the options after {@code serve}, without {@code --port}.
     * @return the running command.
     * @throws IOException when no free port was found.
     */
    static ServeRun start(final String... args) throws IOException
    {
        final ServeRun run = new ServeRun(args);
        run.thread.start();
        return run;
    }

    int port()
    {
        return port;
    }

    /**
     * @param http the client.
     * @return the first answer of {@code GET /healthz}, once the gateway listens (within 30 s).
     * @throws Exception when the request fails otherwise, or the wait is interrupted.
     */
    HttpResponse<String> awaitHealth(final HttpClient http) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true)
        {
            try
            {
                return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            }
            catch (final ConnectException ex)
            {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(20);
            }
        }
    }

    /**
     * Interrupts the command and waits for it (20 s at most).
     *
     * @return its exit code, -1 when it has not returned.
     * @throws InterruptedException when the wait is interrupted.
     */
    int stop() throws InterruptedException
    {
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(20));
        return exit.get();
    }

    String out()
    {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err()
    {
        return err.toString(StandardCharsets.UTF_8);
    }
}
