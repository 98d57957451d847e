package io.multifactor.gateway;

/**
 * The HTTP side of a {@link Gateway}: listens on the gateway's port and serves its routes until closed. One
 * implementation per {@link GatewayServer}.
 * <p>
 * Implementations are threadsafe: {@link #close()} may be called from any thread, more than once.
 */
interface GatewayFront
{
    /** Stops listening and closes every connection (in-flight requests are cut); waits up to 10 s. */
    void close();
}
