package io.multifactor.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import io.multifactor.serving.DelegateCall;

import java.util.Objects;

/**
 * The metadata of a routed response: the delegate's (id, model name as the provider reported it, token usage, finish
 * reason) and what multi-factor chose: the model's name in the configuration, the decision, the attempts made and the
 * explain JSON of the selection, written when first asked for (from the selection the response keeps), so a call that
 * never reads it does not pay for it.
 * <p>
 * Instances are threadsafe: immutable but for the explain JSON, written once under the instance's lock.
 */
public final class MultiFactorChatResponseMetadata extends ChatResponseMetadata
{
    private final String selectedModel;
    private final String decision;
    private final int attempts;
    private final DelegateCall<?> call;
    private String explainJson;

    private MultiFactorChatResponseMetadata(final Builder builder)
    {
        super(builder);
        this.selectedModel = builder.selectedModel;
        this.decision = builder.decision;
        this.attempts = builder.attempts;
        this.call = builder.call;
    }

    static ChatResponse wrap(final ChatResponse response, final DelegateCall<?> call)
    {
        final ChatResponseMetadata original = response.metadata();
        final Builder builder = new Builder();
        if (original != null)
        {
            builder.id(original.id()).modelName(original.modelName()).tokenUsage(original.tokenUsage())
                .finishReason(original.finishReason());
        }
        builder.selectedModel = call.selectedModelName();
        builder.decision = call.decisionName();
        builder.attempts = call.attempts();
        builder.call = call;
        return response.toBuilder().metadata(builder.build()).build();
    }

    /** @return the chosen model's name in the configuration ({@link DelegateCall#METADATA_MODEL}). */
    public String selectedModel()
    {
        return selectedModel;
    }

    /** @return the decision's name. */
    public String decision()
    {
        return decision;
    }

    /** @return the attempts the call made (2 after one retry on the next candidate). */
    public int attempts()
    {
        return attempts;
    }

    /**
     * @return the explain JSON of the selection that chose (as the gateway's {@code x-mf-explain} header), written on the
     *     first call of this method; {@code null} for metadata built without a routed call.
     */
    public synchronized String explainJson()
    {
        if (explainJson == null && call != null)
        {
            explainJson = call.explainJson();
        }
        return explainJson;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof MultiFactorChatResponseMetadata && super.equals(o) &&
            Objects.equals(selectedModel, ((MultiFactorChatResponseMetadata)o).selectedModel) &&
            attempts == ((MultiFactorChatResponseMetadata)o).attempts;
    }

    @Override
    public int hashCode()
    {
        return 31 * super.hashCode() + Objects.hashCode(selectedModel);
    }

    @Override
    public String toString()
    {
        return "MultiFactorChatResponseMetadata{selectedModel=" + selectedModel + ", decision=" + decision +
            ", attempts=" + attempts + ", " + super.toString() + '}';
    }

    /**
     * Builds the metadata; the routing models fill the multi-factor part.
     * <p>
     * This class is not threadsafe.
     */
    public static final class Builder extends ChatResponseMetadata.Builder<Builder>
    {
        private String selectedModel;
        private String decision;
        private int attempts;
        private DelegateCall<?> call;

        Builder()
        {
        }

        @Override
        public MultiFactorChatResponseMetadata build()
        {
            return new MultiFactorChatResponseMetadata(this);
        }
    }
}
