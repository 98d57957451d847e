package io.multifactor.envoy;

import io.multifactor.api.Handles;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.Backend;
import io.multifactor.serving.BackendChooser;
import io.multifactor.serving.OpenAiRequest;
import io.multifactor.serving.PrefixBackends;
import io.multifactor.serving.PrefixTicket;

/**
 * What a configuration says about reaching each model, indexed by model handle: the {@code provider_model_id} the
 * body's {@code model} is rewritten to, and the chooser among its {@code backend_refs}. One table per loaded
 * configuration; a reload builds a new one.
 * <p>
 * This class is immutable (the chooser it holds is threadsafe) and can be used across threads.
 */
final class RoutingTable
{
    private final String[] providerModelIds;
    private final BackendChooser backends;

    private RoutingTable(final String[] providerModelIds, final BackendChooser backends)
    {
        this.providerModelIds = providerModelIds;
        this.backends = backends;
    }

    /**
     * @param loaded a validated configuration whose plans' handles are the running engine's.
     * @param engine the running engine: a scraped model's backend is its fresh one with the fewest waiting requests.
     * @param prefixBackends the service's prefix-cache affinity state, kept across reloads.
     * @return its table.
     */
    static RoutingTable of(final LoadedConfig loaded, final MultiFactorEngine engine,
        final PrefixBackends prefixBackends)
    {
        final String[] ids = new String[loaded.plans().modelCapacity()];
        for (final ModelConfig model : loaded.config().models())
        {
            final int id = loaded.plans().modelId(model.name());
            if (id != Handles.NONE)
            {
                ids[id] = model.providerModelId();
            }
        }
        return new RoutingTable(ids, BackendChooser.following(loaded, engine, prefixBackends));
    }

    /**
     * @param modelId a model handle.
     * @param modelName the model's name, returned when the table does not know the handle.
     * @return the id to send to the model's servers.
     */
    String providerModelId(final int modelId, final String modelName)
    {
        final String id = modelId >= 0 && modelId < providerModelIds.length ? providerModelIds[modelId] : null;
        return id == null ? modelName : id;
    }

    /**
     * Lock-free; allocates nothing.
     *
     * @param modelId a model handle.
     * @return the next of its backends (weighted), or {@code null} when it has none.
     */
    Backend backend(final int modelId)
    {
        return backends.choose(modelId);
    }

    /**
     * A backend by prefix-cache affinity for a model that has it (else as {@link #backend(int)}); allocates nothing.
     *
     * @param modelId a model handle.
     * @param parsed the request's body, its prompt captured ({@link #followsPrefixes()}).
     * @param ticket the attempt's ticket, answered and abandoned by its lifecycle.
     * @return the backend, or {@code null} when the model has none.
     */
    Backend backend(final int modelId, final OpenAiRequest parsed, final PrefixTicket ticket)
    {
        return backends.choose(modelId, parsed.prompt(), parsed.promptTokens(), ticket);
    }

    /** @return the backend choice, whose {@link BackendChooser#shareFor} gives the selection each candidate's P(m). */
    BackendChooser chooser()
    {
        return backends;
    }

    /** @return whether some model has {@code prefix_affinity}: bodies should capture their prompt. */
    boolean followsPrefixes()
    {
        return backends.followsPrefixes();
    }

    /** @return what the configuration leaves unusable (a model without backends, an API key variable unset). */
    java.util.List<String> problems()
    {
        return backends.problems();
    }
}
