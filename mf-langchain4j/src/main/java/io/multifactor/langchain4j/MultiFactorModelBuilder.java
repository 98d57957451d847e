package io.multifactor.langchain4j;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.DelegateCall;
import io.multifactor.serving.EngineHost;
import io.multifactor.serving.RequestFlow;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Builds a routing chat model ({@link MultiFactorChatModel#builder()}, {@link MultiFactorStreamingChatModel#builder()})
 * from an engine and a map of delegates, each model's name in the configuration to the LangChain4j chat model that
 * calls it (built with its own retries off: {@code maxRetries(0)}). A delegate named for a model the configuration does
 * not have is refused at {@link #build()}, with the nearest model name.
 * <p>
 * This class is not threadsafe: one thread builds; the built model is threadsafe.
 *
 * @param <D> the delegate type.
 * @param <M> the routing model built.
 */
public final class MultiFactorModelBuilder<D, M>
{
    private final Function<MultiFactorModelBuilder<D, M>, M> factory;
    private final Map<String, D> delegates = new LinkedHashMap<>();
    private MultiFactorEngine engine;
    private Function<String, String> providerModelIds;
    private String decision;
    private int maxAttempts = RequestFlow.DEFAULT_MAX_ATTEMPTS;

    MultiFactorModelBuilder(final Function<MultiFactorModelBuilder<D, M>, M> factory)
    {
        this.factory = factory;
    }

    /**
     * @param host a running engine host: its engine selects, and each model is called with the {@code provider_model_id}
     *     of the configuration it last applied.
     * @return this builder.
     */
    public MultiFactorModelBuilder<D, M> host(final EngineHost host)
    {
        this.engine = host.engine();
        this.providerModelIds = host::providerModelId;
        return this;
    }

    /**
     * @param engine an engine (each model is called with its name as the model id; {@link #host} reads
     *     {@code provider_model_id}).
     * @return this builder.
     */
    public MultiFactorModelBuilder<D, M> engine(final MultiFactorEngine engine)
    {
        this.engine = engine;
        this.providerModelIds = null;
        return this;
    }

    /**
     * @param modelName a model's name in the configuration.
     * @param delegate the chat model that calls it.
     * @return this builder.
     */
    public MultiFactorModelBuilder<D, M> delegate(final String modelName, final D delegate)
    {
        delegates.put(Objects.requireNonNull(modelName, "modelName"), Objects.requireNonNull(delegate, "delegate"));
        return this;
    }

    /**
     * @param byModelName each model's name to the chat model that calls it.
     * @return this builder.
     */
    public MultiFactorModelBuilder<D, M> delegates(final Map<String, ? extends D> byModelName)
    {
        byModelName.forEach(this::delegate);
        return this;
    }

    /**
     * @param decisionName the decision of a call whose model parameter names none.
     * @return this builder.
     */
    public MultiFactorModelBuilder<D, M> decision(final String decisionName)
    {
        this.decision = decisionName;
        return this;
    }

    /**
     * @param attempts attempts a call makes at most, >= 1 (default 2: one retry on the next candidate before the first
     *     token).
     * @return this builder.
     */
    public MultiFactorModelBuilder<D, M> maxAttempts(final int attempts)
    {
        if (attempts < 1)
        {
            throw new IllegalArgumentException("maxAttempts must be >= 1: " + attempts);
        }
        this.maxAttempts = attempts;
        return this;
    }

    /**
     * @return the routing model.
     * @throws IllegalStateException without an engine or delegates.
     * @throws IllegalArgumentException for a delegate of a model the configuration does not have, or a default decision
     *     it does not have ({@link DelegateCall#check}).
     */
    public M build()
    {
        if (engine == null)
        {
            throw new IllegalStateException("no engine: call host(...) or engine(...)");
        }
        if (delegates.isEmpty())
        {
            throw new IllegalStateException("no delegates: call delegate(modelName, chatModel)");
        }
        DelegateCall.check(engine, delegates.keySet(), decision);
        return factory.apply(this);
    }

    DelegateCall<D> newCall()
    {
        return new DelegateCall<>(engine, providerModelIds, delegates, decision, maxAttempts);
    }

    MultiFactorEngine engine()
    {
        return engine;
    }
}
