package io.multifactor.langchain4j;

import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.DefaultChatRequestParameters;
import io.multifactor.api.Priority;

import java.util.Objects;

/**
 * A call's parameters with what multi-factor routes on beside LangChain4j's own (model name, which names the decision,
 * maximum output tokens, temperature, ...): the session key that keeps a conversation on one model (as the gateway's
 * {@code x-session-id}), the priority ({@code x-mf-priority}) and the call's own TTFT and TPOT bounds
 * ({@code x-slo-ttft-ms}, {@code x-slo-tpot-ms}), the way a provider's own parameters extend LangChain4j's:
 * <pre>{@code
 * ChatRequest.builder().messages(UserMessage.from("Say hello"))
 *     .parameters(MultiFactorChatRequestParameters.builder().modelName("chat").sessionKey(conversationId).build())
 *     .build();
 * }</pre>
 * The routing models read them; the delegate is called with LangChain4j's common parameters only. An unset value is
 * {@code null}: no session, {@link Priority#STANDARD}, no bound of the call's own (the decision's ceilings apply).
 * {@link #overrideWith} and {@link #defaultedBy} keep the routing values, so they survive LangChain4j's merge with a
 * model's default parameters.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class MultiFactorChatRequestParameters extends DefaultChatRequestParameters
{
    private final String sessionKey;
    private final Integer priority;
    private final Double maxTtftMs;
    private final Double maxTpotMs;

    private MultiFactorChatRequestParameters(final Builder builder)
    {
        super(builder);
        this.sessionKey = builder.sessionKey;
        this.priority = builder.priority;
        this.maxTtftMs = builder.maxTtftMs;
        this.maxTpotMs = builder.maxTpotMs;
    }

    /** @return a builder of parameters, LangChain4j's common ones and multi-factor's. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return the session key (a conversation id), or {@code null}. */
    public String sessionKey()
    {
        return sessionKey;
    }

    /**
     * @return the call's priority, a {@link Priority} code, or {@code null} ({@link Priority#STANDARD}); only
     *     {@link Priority#SHEDDABLE} calls are shed by a decision's {@code admission}.
     */
    public Integer priority()
    {
        return priority;
    }

    /** @return the call's own TTFT bound in milliseconds, or {@code null}. */
    public Double maxTtftMs()
    {
        return maxTtftMs;
    }

    /** @return the call's own TPOT bound in milliseconds, or {@code null}. */
    public Double maxTpotMs()
    {
        return maxTpotMs;
    }

    /** @return these parameters with the values {@code that} sets laid over them, routing values included. */
    @Override
    public ChatRequestParameters overrideWith(final ChatRequestParameters that)
    {
        return builder().overrideWith(this).overrideWith(that).build();
    }

    /** @return these parameters with the values they leave unset taken from {@code that}, routing values included. */
    @Override
    public ChatRequestParameters defaultedBy(final ChatRequestParameters that)
    {
        return builder().overrideWith(that).overrideWith(this).build();
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!super.equals(o))
        {
            return false;
        }
        final MultiFactorChatRequestParameters other = (MultiFactorChatRequestParameters)o;
        return Objects.equals(sessionKey, other.sessionKey) && Objects.equals(priority, other.priority) &&
            Objects.equals(maxTtftMs, other.maxTtftMs) && Objects.equals(maxTpotMs, other.maxTpotMs);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(super.hashCode(), sessionKey, priority, maxTtftMs, maxTpotMs);
    }

    @Override
    public String toString()
    {
        return "MultiFactorChatRequestParameters{sessionKey=" + sessionKey + ", priority=" +
            (priority == null ? null : Priority.label(priority)) + ", maxTtftMs=" + maxTtftMs + ", maxTpotMs=" +
            maxTpotMs + ", " + super.toString() + '}';
    }

    /**
     * Builds {@link MultiFactorChatRequestParameters}; {@link #overrideWith} takes the routing values of other such
     * parameters too.
     * <p>
     * This class is not threadsafe.
     */
    public static final class Builder extends DefaultChatRequestParameters.Builder<Builder>
    {
        private String sessionKey;
        private Integer priority;
        private Double maxTtftMs;
        private Double maxTpotMs;

        Builder()
        {
        }

        /**
         * @param parameters parameters whose set values replace this builder's (routing values too when they are
         *     {@link MultiFactorChatRequestParameters}).
         * @return this builder.
         */
        @Override
        public Builder overrideWith(final ChatRequestParameters parameters)
        {
            super.overrideWith(parameters);
            if (parameters instanceof MultiFactorChatRequestParameters)
            {
                final MultiFactorChatRequestParameters routing = (MultiFactorChatRequestParameters)parameters;
                sessionKey = routing.sessionKey != null ? routing.sessionKey : sessionKey;
                priority = routing.priority != null ? routing.priority : priority;
                maxTtftMs = routing.maxTtftMs != null ? routing.maxTtftMs : maxTtftMs;
                maxTpotMs = routing.maxTpotMs != null ? routing.maxTpotMs : maxTpotMs;
            }
            return this;
        }

        /**
         * @param key the session key: a conversation id (its FNV-1a 64 hash is the key, the same as the gateway's
         *     {@code x-session-id} of the same value); {@code null} or empty: none.
         * @return this builder.
         */
        public Builder sessionKey(final String key)
        {
            this.sessionKey = key;
            return this;
        }

        /**
         * @param code the call's priority: {@link Priority#CRITICAL}, {@link Priority#STANDARD} or
         *     {@link Priority#SHEDDABLE}.
         * @return this builder.
         * @throws IllegalArgumentException for another code.
         */
        public Builder priority(final int code)
        {
            Priority.label(code);
            this.priority = code;
            return this;
        }

        /**
         * @param ms the call's own TTFT bound in milliseconds, > 0 (it can only tighten the decision's
         *     {@code max_ttft_ms}); 0: none.
         * @return this builder.
         * @throws IllegalArgumentException for a negative or NaN value.
         */
        public Builder maxTtftMs(final double ms)
        {
            this.maxTtftMs = bound("maxTtftMs", ms);
            return this;
        }

        /**
         * @param ms the call's own TPOT bound in milliseconds, > 0 (it can only tighten the decision's
         *     {@code max_tpot_ms}); 0: none.
         * @return this builder.
         * @throws IllegalArgumentException for a negative or NaN value.
         */
        public Builder maxTpotMs(final double ms)
        {
            this.maxTpotMs = bound("maxTpotMs", ms);
            return this;
        }

        private static Double bound(final String name, final double ms)
        {
            if (!(ms >= 0.0))
            {
                throw new IllegalArgumentException(name + " must be a positive number of milliseconds (0: none): " + ms);
            }
            return ms;
        }

        @Override
        public MultiFactorChatRequestParameters build()
        {
            return new MultiFactorChatRequestParameters(this);
        }
    }
}
