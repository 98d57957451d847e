package io.multifactor.gateway;

/**
 * How a {@link Gateway} listens and how long it waits for backends.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param host the address to listen on (such as {@code 127.0.0.1} or {@code 0.0.0.0}).
 * @param port the port to listen on; 0 picks a free one ({@link Gateway#port()} says which).
 * @param firstByteTimeoutMs how long a streamed request may wait for a backend's answer (its status line), from its
 *     arrival, across its attempts.
 * @param idleTimeoutMs how long a response may stay silent between two chunks.
 * @param eventLoops how many event loops serve requests (each one owns its connections and requests).
 * @param maxConnectionsPerBackend the connection pool's size per backend host:port and event loop.
 * @param reloadDebounceMs quiet period after a change of the configuration file before it is reloaded.
 * @param requestTimeoutMs how long a non-streamed request may take for its whole answer, from its arrival, across its
 *     attempts.
 * @param maxAttempts attempts a request makes at most (1: no fallback to another candidate).
 */
public record GatewayOptions(
    String host, int port, long firstByteTimeoutMs, long idleTimeoutMs, int eventLoops, int maxConnectionsPerBackend,
    long reloadDebounceMs, long requestTimeoutMs, int maxAttempts)
{
    /** Default timeout of a non-streamed request's whole answer: 600 s. */
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 600_000;
    /** Default first-byte timeout: 60 s. */
    public static final long DEFAULT_FIRST_BYTE_TIMEOUT_MS = 60_000;
    /** Default idle-stream timeout: 300 s. */
    public static final long DEFAULT_IDLE_TIMEOUT_MS = 300_000;
    /** Default attempts per request: the first and one fallback. */
    public static final int DEFAULT_MAX_ATTEMPTS = 2;
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
     * @param requestTimeoutMs > 0.
     * @param maxAttempts >= 1.
     */
    public GatewayOptions
    {
        if (port < 0 || port > 65535 || firstByteTimeoutMs <= 0 || idleTimeoutMs <= 0 ||
            eventLoops < 1 || maxConnectionsPerBackend < 1 || reloadDebounceMs < 1 || requestTimeoutMs <= 0 ||
            maxAttempts < 1)
        {
            throw new IllegalArgumentException("invalid gateway options: " + host + ':' + port + ", first byte " +
                firstByteTimeoutMs + " ms, idle " + idleTimeoutMs + " ms, " + eventLoops + " event loops, " +
                maxConnectionsPerBackend + " connections per backend, reload debounce " + reloadDebounceMs +
                " ms, request timeout " + requestTimeoutMs + " ms, " + maxAttempts + " attempts");
        }
    }

    /**
     * The options with the default request timeout and attempt budget.
     *
     * @param host the address to listen on.
     * @param port the port, 0..65535.
     * @param firstByteTimeoutMs > 0.
     * @param idleTimeoutMs > 0.
     * @param eventLoops >= 1.
     * @param maxConnectionsPerBackend >= 1.
     * @param reloadDebounceMs >= 1.
     */
    public GatewayOptions(final String host, final int port, final long firstByteTimeoutMs, final long idleTimeoutMs,
        final int eventLoops, final int maxConnectionsPerBackend, final long reloadDebounceMs)
    {
        this(host, port, firstByteTimeoutMs, idleTimeoutMs, eventLoops, maxConnectionsPerBackend, reloadDebounceMs,
            DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_MAX_ATTEMPTS);
    }

    /**
     * @return the defaults: {@code 127.0.0.1:8080}, 60 s first byte, 300 s idle, 2 event loops, 1024 connections,
     *     600 s request timeout, 2 attempts.
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
            reloadDebounceMs, requestTimeoutMs, maxAttempts);
    }

    /**
     * @param firstByteTimeoutMs the first-byte timeout.
     * @param idleTimeoutMs the idle-stream timeout.
     * @return these options with other timeouts.
     */
    public GatewayOptions withTimeouts(final long firstByteTimeoutMs, final long idleTimeoutMs)
    {
        return new GatewayOptions(host, port, firstByteTimeoutMs, idleTimeoutMs, eventLoops, maxConnectionsPerBackend,
            reloadDebounceMs, requestTimeoutMs, maxAttempts);
    }

    /**
     * @param requestTimeoutMs the timeout of a non-streamed request's whole answer.
     * @param maxAttempts attempts a request makes at most.
     * @return these options with another request timeout and attempt budget.
     */
    public GatewayOptions withRequestBudget(final long requestTimeoutMs, final int maxAttempts)
    {
        return new GatewayOptions(host, port, firstByteTimeoutMs, idleTimeoutMs, eventLoops, maxConnectionsPerBackend,
            reloadDebounceMs, requestTimeoutMs, maxAttempts);
    }
}
