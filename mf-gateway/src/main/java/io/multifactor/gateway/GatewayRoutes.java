package io.multifactor.gateway;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.BackendChooser;
import io.multifactor.serving.OpenAiRequestReader;

/**
 * What every event loop of a {@link Gateway} shares: the engine, the body reader, the meters, the options, the
 * operator's options (keys, TLS, access log, drain), and the backends of the running configuration (swapped whole by a
 * reload).
 * <p>
 * This class is threadsafe: the backends and the shutdown grace are published through volatile fields, the rest is
 * threadsafe or immutable.
 */
final class GatewayRoutes
{
    final MultiFactorEngine engine;
    final OpenAiRequestReader reader = new OpenAiRequestReader();
    final GatewayMeters meters;
    final GatewayOptions options;
    final OperatingOptions operating;
    private volatile BackendChooser chooser;
    /** How long a stopping server lets open requests finish: 0 (cut at once) but for a drain. */
    volatile long shutdownGraceMs;

    GatewayRoutes(final MultiFactorEngine engine, final GatewayMeters meters, final GatewayOptions options,
        final OperatingOptions operating, final BackendChooser chooser)
    {
        this.engine = engine;
        this.meters = meters;
        this.options = options;
        this.operating = operating;
        this.chooser = chooser;
    }

    BackendChooser chooser()
    {
        return chooser;
    }

    void chooser(final BackendChooser next)
    {
        chooser = next;
    }
}
