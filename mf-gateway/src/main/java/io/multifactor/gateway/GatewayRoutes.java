package io.multifactor.gateway;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.BackendChooser;
import io.multifactor.serving.OpenAiRequestReader;

/**
 * What every event loop of a {@link Gateway} shares: the engine, the body reader, the meters, the options, and the
 * backends of the running configuration (swapped whole by a reload).
 * <p>
 * This class is threadsafe: the backends are published through a volatile field, the rest is threadsafe or immutable.
 */
final class GatewayRoutes
{
    final MultiFactorEngine engine;
    final OpenAiRequestReader reader = new OpenAiRequestReader();
    final GatewayMeters meters;
    final GatewayOptions options;
    private volatile BackendChooser chooser;

    GatewayRoutes(final MultiFactorEngine engine, final GatewayMeters meters, final GatewayOptions options,
        final BackendChooser chooser)
    {
        this.engine = engine;
        this.meters = meters;
        this.options = options;
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
