package io.multifactor.spring.ai;

import io.multifactor.api.Priority;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.DefaultChatOptions;
import org.springframework.ai.chat.prompt.DefaultChatOptionsBuilder;

import java.util.List;
import java.util.Objects;

/**
 * A call's options with what multi-factor routes on beside the portable ones: the decision (else the {@code model}
 * option when it names one, else {@code multifactor.decision}), the session key that keeps a conversation on one model
 * (DESIGN 4.6's {@code x-session-id}), the priority and the call's own TTFT and TPOT bounds (4.8). The session key,
 * priority and bounds are carried to the request flow and applied when the engine supports them (sessions and
 * eligibility are configured in the routing file).
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class MultiFactorChatOptions extends DefaultChatOptions
{
    /** Priority of a call that sets none: {@link Priority#STANDARD}. */
    public static final int DEFAULT_PRIORITY = Priority.STANDARD;

    private final String decision;
    private final String sessionKey;
    private final int priority;
    private final double maxTtftMs;
    private final double maxTpotMs;

    private MultiFactorChatOptions(final Builder b, final String model, final Double frequencyPenalty,
        final Integer maxTokens, final Double presencePenalty, final List<String> stopSequences, final Double temperature,
        final Integer topK, final Double topP)
    {
        super(model, frequencyPenalty, maxTokens, presencePenalty, stopSequences, temperature, topK, topP);
        this.decision = b.decision;
        this.sessionKey = b.sessionKey;
        this.priority = b.priority;
        this.maxTtftMs = b.maxTtftMs;
        this.maxTpotMs = b.maxTpotMs;
    }

    /** @return a builder of options. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return the decision the call routes on, or {@code null}. */
    public String decision()
    {
        return decision;
    }

    /** @return the session key (a conversation id), or {@code null}. */
    public String sessionKey()
    {
        return sessionKey;
    }

    /**
     * @return the call's priority, a {@link Priority} code ({@link #DEFAULT_PRIORITY} when unset): only
     *     {@link Priority#SHEDDABLE} calls are shed by a decision's {@code admission}.
     */
    public int priority()
    {
        return priority;
    }

    /** @return the call's TTFT bound in milliseconds, NaN when unset. */
    public double maxTtftMs()
    {
        return maxTtftMs;
    }

    /** @return the call's TPOT bound in milliseconds, NaN when unset. */
    public double maxTpotMs()
    {
        return maxTpotMs;
    }

    @Override
    public Builder mutate()
    {
        final Builder b = new Builder();
        b.model(getModel()).frequencyPenalty(getFrequencyPenalty()).maxTokens(getMaxTokens())
            .presencePenalty(getPresencePenalty()).stopSequences(getStopSequences()).temperature(getTemperature())
            .topK(getTopK()).topP(getTopP());
        b.decision = decision;
        b.sessionKey = sessionKey;
        b.priority = priority;
        b.maxTtftMs = maxTtftMs;
        b.maxTpotMs = maxTpotMs;
        return b;
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!(o instanceof MultiFactorChatOptions) || !super.equals(o))
        {
            return false;
        }
        final MultiFactorChatOptions other = (MultiFactorChatOptions)o;
        return Objects.equals(decision, other.decision) && Objects.equals(sessionKey, other.sessionKey) &&
            priority == other.priority && Double.compare(maxTtftMs, other.maxTtftMs) == 0 &&
            Double.compare(maxTpotMs, other.maxTpotMs) == 0;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(super.hashCode(), decision, sessionKey, priority, maxTtftMs, maxTpotMs);
    }

    /**
     * Builds {@link MultiFactorChatOptions}; {@link #combineWith} keeps the routing fields of another such builder.
     * <p>
     * This class is not threadsafe.
     */
    public static final class Builder extends DefaultChatOptionsBuilder<Builder>
    {
        private String decision;
        private String sessionKey;
        private int priority = DEFAULT_PRIORITY;
        private double maxTtftMs = Double.NaN;
        private double maxTpotMs = Double.NaN;

        Builder()
        {
        }

        /**
         * @param decisionName the decision the call routes on.
         * @return this builder.
         */
        public Builder decision(final String decisionName)
        {
            this.decision = decisionName;
            return this;
        }

        /**
         * @param key the session key (a conversation id).
         * @return this builder.
         */
        public Builder sessionKey(final String key)
        {
            this.sessionKey = key;
            return this;
        }

        /**
         * @param value the call's priority: {@link Priority#CRITICAL}, {@link Priority#STANDARD} or
         *     {@link Priority#SHEDDABLE}.
         * @return this builder.
         */
        public Builder priority(final int value)
        {
            this.priority = value;
            return this;
        }

        /**
         * @param ms the call's TTFT bound in milliseconds.
         * @return this builder.
         */
        public Builder maxTtftMs(final double ms)
        {
            this.maxTtftMs = ms;
            return this;
        }

        /**
         * @param ms the call's TPOT bound in milliseconds.
         * @return this builder.
         */
        public Builder maxTpotMs(final double ms)
        {
            this.maxTpotMs = ms;
            return this;
        }

        @Override
        public Builder combineWith(final ChatOptions.Builder<?> other)
        {
            super.combineWith(other);
            if (other instanceof Builder)
            {
                final Builder b = (Builder)other;
                decision = b.decision != null ? b.decision : decision;
                sessionKey = b.sessionKey != null ? b.sessionKey : sessionKey;
                priority = b.priority != DEFAULT_PRIORITY ? b.priority : priority;
                maxTtftMs = Double.isNaN(b.maxTtftMs) ? maxTtftMs : b.maxTtftMs;
                maxTpotMs = Double.isNaN(b.maxTpotMs) ? maxTpotMs : b.maxTpotMs;
            }
            return this;
        }

        @Override
        public MultiFactorChatOptions build()
        {
            return new MultiFactorChatOptions(this, model, frequencyPenalty, maxTokens, presencePenalty, stopSequences,
                temperature, topK, topP);
        }
    }
}
