package io.multifactor.gateway;

/**
 * How a {@link Gateway} listens and how long it waits for backends.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param host the address to listen on (such as {@code 127.0.0.1} or {@code 0.0.0.0}).
 * @param port the port to listen on; 0 picks a free one ({@link Gateway#port()} says which).
 * @param firstByteTimeoutMs how long a backend may take to answer (its status line) after the request was sent.
 * @param idleTimeoutMs how long a response may stay silent between two chunks.
 * @param eventLoops how many event loops serve requests (each one owns its connections and requests).
 * @param maxConnectionsPerBackend the connection pool's size per backend host:port and event loop.
 * @param reloadDebounceMs quiet period after a change of the configuration file before it is reloaded.
 */
public record GatewayOptions(
    String host, int port, long firstByteTimeoutMs, long idleTimeoutMs, int eventLoops, int maxConnectionsPerBackend,
    long reloadDebounceMs)
{
    /** Default first-byte timeout: 60 s. */
    public static final long DEFAULT_FIRST_BYTE_TIMEOUT_MS = 60_000;
    /** Default idle-stream timeout: 300 s. */
    public static final long DEFAULT_IDLE_TIMEOUT_MS = 300_000;
    /** Default port. */
    public static final int DEFAULT_PORT = 8080;

    /**
     * @param host the address to listen on.
     * @param port the port, 0..65535.
     * @param firstByteTimeoutMs > 0.
     * @param idleTimeoutMs > 0.
     * @param eventLoops >= 1.
     * @param maxConnectionsPerBackend >= 1.
     * @param reloadDebounceMs >= 1.
     */
    public GatewayOptions
    {
        if (port < 0 || port > 65535 || firstByteTimeoutMs <= 0 || idleTimeoutMs <= 0 ||
            eventLoops < 1 || maxConnectionsPerBackend < 1 || reloadDebounceMs < 1)
        {
            throw new IllegalArgumentException("invalid gateway options: " + host + ':' + port + ", first byte " +
                firstByteTimeoutMs + " ms, idle " + idleTimeoutMs + " ms, " + eventLoops + " event loops, " +
                maxConnectionsPerBackend + " connections per backend, reload debounce " + reloadDebounceMs +
                " ms");
        }
    }

    /**
     * @return the defaults: {@code 127.0.0.1:8080}, 60 s first byte, 300 s idle, 2 event loops, 1024 connections.
     */
    public static GatewayOptions defaults()
    {
        return new GatewayOptions("127.0.0.1", DEFAULT_PORT, DEFAULT_FIRST_BYTE_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, 2,
            1024, 100);
    }

    /**
     * @param port the port.
     * @return these options on another port.
     */
    public GatewayOptions withPort(final int port)
    {
        return new GatewayOptions(host, port, firstByteTimeoutMs, idleTimeoutMs, eventLoops, maxConnectionsPerBackend,
            reloadDebounceMs);
    }

    /**
     * @param firstByteTimeoutMs the first-byte timeout.
     * @param idleTimeoutMs the idle-stream timeout.
     * @return these options with other timeouts.
     */
    public GatewayOptions withTimeouts(final long firstByteTimeoutMs, final long idleTimeoutMs)
    {
        return new GatewayOptions(host, port, firstByteTimeoutMs, idleTimeoutMs, eventLoops, maxConnectionsPerBackend,
            reloadDebounceMs);
    }
}
