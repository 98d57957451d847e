package io.multifactor.gateway;

/**
 * How an operator runs a {@link Gateway} in front of GPUs, beside its {@link GatewayOptions}: client keys, a separate
 * admin port, TLS, the access log and the drain on shutdown.
 * <p>
 * Instances are immutable and threadsafe (the objects they hold are threadsafe).
 *
 * @param apiKeysOrNull the client keys every API request must carry, or null for none (open).
 * @param adminPort the port that serves {@code /metrics}, {@code /healthz} and {@code /readyz} instead of the main
 *     one, 0 for a free one, or {@link #NO_ADMIN_PORT} to serve them on the main port.
 * @param tlsOrNull the certificate and key the main port serves HTTPS with (HTTP/1.1 and HTTP/2 by ALPN), or null
 *     for plain HTTP.
 * @param accessLogOrNull where each request's line goes, or null for no access log.
 * @param drainDelayMs on {@link Gateway#drain()}: how long new connections are still accepted after
 *     {@code /readyz} says 503 (for load balancers to notice), >= 0.
 * @param drainTimeoutMs then: how long open requests may finish before they are cut (their leases ended), >= 0.
 */
public record OperatingOptions(
    ApiKeys apiKeysOrNull, int adminPort, TlsFiles tlsOrNull, AccessLog accessLogOrNull, long drainDelayMs,
    long drainTimeoutMs)
{
    /** {@link #adminPort()} when the admin endpoints are served on the main port. */
    public static final int NO_ADMIN_PORT = -1;
    /** Default drain delay: 5 s. */
    public static final long DEFAULT_DRAIN_DELAY_MS = 5_000;
    /** Default drain timeout: 30 s. */
    public static final long DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

    /**
     * @param apiKeysOrNull keys, or null.
     * @param adminPort -1, or 0..65535.
     * @param tlsOrNull TLS, or null.
     * @param accessLogOrNull the log, or null.
     * @param drainDelayMs >= 0.
     * @param drainTimeoutMs >= 0.
     */
    public OperatingOptions
    {
        if (adminPort < NO_ADMIN_PORT || adminPort > 65535 || drainDelayMs < 0 || drainTimeoutMs < 0)
        {
            throw new IllegalArgumentException("invalid operating options: admin port " + adminPort + ", drain delay " +
                drainDelayMs + " ms, drain timeout " + drainTimeoutMs + " ms");
        }
    }

    /** @return no keys, no admin port, no TLS, no access log, the default drain delay and timeout. */
    public static OperatingOptions defaults()
    {
        return new OperatingOptions(null, NO_ADMIN_PORT, null, null, DEFAULT_DRAIN_DELAY_MS, DEFAULT_DRAIN_TIMEOUT_MS);
    }

    /** @return whether {@code /metrics}, {@code /healthz} and {@code /readyz} have their own port. */
    public boolean separateAdminPort()
    {
        return adminPort != NO_ADMIN_PORT;
    }
}
