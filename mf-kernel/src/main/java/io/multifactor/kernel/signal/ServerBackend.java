package io.multifactor.kernel.signal;

import java.util.Objects;

/**
 * One backend of a model whose {@code server} is set: where its metrics are scraped and what it is called in the
 * {@link ServerLoadTable}. Its {@link #key()} is the origin ({@code http://host:port}), so a backend keeps its values
 * across a reload for as long as the same model lists the same origin, whatever its label.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param model the model's name.
 * @param https whether the server is reached with TLS.
 * @param host host name or address, without brackets for IPv6.
 * @param port TCP port, 1..65535.
 * @param kind which metric names the server publishes.
 */
public record ServerBackend(String model, boolean https, String host, int port, ServerKind kind)
{
    /**
     * @param model the model's name.
     * @param https whether the server is reached with TLS.
     * @param host host name or address.
     * @param port TCP port, 1..65535.
     * @param kind which metric names the server publishes.
     * @throws IllegalArgumentException when the port is out of range.
     */
    public ServerBackend
    {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(kind, "kind");
        if (port < 1 || port > 65535)
        {
            throw new IllegalArgumentException("port must be 1..65535: " + port);
        }
    }

    /** @return the origin, {@code http://host:port} or {@code https://host:port}, brackets around an IPv6 host. */
    public String key()
    {
        return (https ? "https://" : "http://") + (host.indexOf(':') >= 0 ? '[' + host + ']' : host) + ':' + port;
    }
}
