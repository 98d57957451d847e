package io.multifactor.gateway;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.ServerSSLOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The gateway's TLS certificate and key ({@code --tls-cert PEM --tls-key PEM}), served with HTTP/1.1 and HTTP/2 chosen
 * by ALPN, and re-read when either file changes: a periodic check (every {@link #CHECK_PERIOD_MS}) reads both and
 * compares them with the pair in use (a few kilobytes); a changed pair that loads is installed on every event loop's server for the
 * connections that follow (open ones keep theirs), a pair that does not load is reported and the running one stays.
 * <p>
 * This class is threadsafe: the current pair is published through a volatile field, servers are kept in a
 * copy-on-write list, and checks are serialized by this object's lock (off the event loops, once a second).
 */
public final class TlsFiles
{
    /** How often the files are checked for a change. */
    public static final long CHECK_PERIOD_MS = 1_000;

    private final Path certFile;
    private final Path keyFile;
    private final CopyOnWriteArrayList<HttpServer> servers = new CopyOnWriteArrayList<>();
    private volatile PemKeyCertOptions current;
    private volatile byte[][] stamp;
    private volatile String lastProblem;
    private volatile long reloads;

    private TlsFiles(final Path certFile, final Path keyFile, final PemKeyCertOptions current, final byte[][] stamp)
    {
        this.certFile = certFile;
        this.keyFile = keyFile;
        this.current = current;
        this.stamp = stamp;
    }

    /**
     * Reads and checks the pair once, at start.
     *
     * @param certFile the certificate chain, PEM.
     * @param keyFile the private key, PEM (PKCS#8 {@code PRIVATE KEY} or PKCS#1 {@code RSA PRIVATE KEY}).
     * @return the pair.
     * @throws IllegalArgumentException naming the file and what is wrong with it.
     */
    public static TlsFiles load(final Path certFile, final Path keyFile)
    {
        final byte[][] stamp = {bytes(certFile, "--tls-cert"), bytes(keyFile, "--tls-key")};
        final PemKeyCertOptions options = read(certFile, keyFile, stamp);
        return new TlsFiles(certFile, keyFile, options, stamp);
    }

    /** @return the pair in use, for a server that starts listening. */
    PemKeyCertOptions current()
    {
        return current;
    }

    /** @param server a listening server that takes a new pair when the files change. */
    void follow(final HttpServer server)
    {
        servers.add(server);
    }

    /** @param server a server that stopped listening. */
    void unfollow(final HttpServer server)
    {
        servers.remove(server);
    }

    /** @return the problem of the last changed pair that did not load, or null. */
    public String lastProblem()
    {
        return lastProblem;
    }

    /** @return how many times a changed pair was installed. */
    public long reloads()
    {
        return reloads;
    }

    /**
     * Checks the files now (the periodic check calls this); blocking file I/O: run it off the event loops.
     *
     * @return true when a changed pair was loaded and handed to the servers.
     */
    synchronized boolean check()
    {
        final byte[][] now;
        try
        {
            now = new byte[][] {bytes(certFile, "--tls-cert"), bytes(keyFile, "--tls-key")};
        }
        catch (final IllegalArgumentException ex)
        {
            lastProblem = ex.getMessage();
            return false;
        }
        if (Arrays.equals(now[0], stamp[0]) && Arrays.equals(now[1], stamp[1]))
        {
            return false;
        }
        stamp = now;
        final PemKeyCertOptions next;
        try
        {
            next = read(certFile, keyFile, now);
        }
        catch (final IllegalArgumentException ex)
        {
            lastProblem = ex.getMessage() + " (the running certificate stays)";
            return false;
        }
        current = next;
        lastProblem = null;
        reloads++;
        for (final HttpServer server : servers)
        {
            server.updateSSLOptions(new ServerSSLOptions().setKeyCertOptions(next).setUseAlpn(true), true);
        }
        return true;
    }

    /**
     * Starts the periodic check on a Vert.x worker.
     *
     * @param vertx the gateway's Vert.x.
     * @return the timer's id.
     */
    long watch(final Vertx vertx)
    {
        return vertx.setPeriodic(CHECK_PERIOD_MS, id -> vertx.executeBlocking(this::check, false));
    }

    private static PemKeyCertOptions read(final Path certFile, final Path keyFile, final byte[][] certAndKey)
    {
        final PemKeyCertOptions options = new PemKeyCertOptions().setCertValue(Buffer.buffer(certAndKey[0]))
            .setKeyValue(Buffer.buffer(certAndKey[1]));
        try
        {
            // Builds the key manager as a server would: a file that is not a PEM certificate and matching key fails here.
            options.getKeyManagerFactory(null);
        }
        catch (final Exception ex)
        {
            throw new IllegalArgumentException("--tls-cert " + certFile + " / --tls-key " + keyFile +
                ": not a PEM certificate chain and its private key (" + ex.getClass().getSimpleName() + ')', ex);
        }
        return options;
    }

    private static byte[] bytes(final Path file, final String option)
    {
        try
        {
            return Files.readAllBytes(file);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException(option + " " + file + ": cannot be read (" + ex.getClass().getSimpleName() +
                ')', ex);
        }
    }
}
