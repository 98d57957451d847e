package io.multifactor.langchain4j;

import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import io.multifactor.serving.DelegateCall;
import io.multifactor.serving.RoutingRefusedException;

/**
 * A LangChain4j {@link ChatModel} that routes each call to one of several delegate chat models: the engine selects (the
 * request's model parameter may name the decision, else the builder's default decision), the delegate is called with
 * the chosen model's {@code provider_model_id}, the lease ends exactly once (200 on success, the status the delegate's
 * exception kept on failure), and a failure is retried on the next candidate while attempts remain. A whole response
 * measures neither TTFT nor TPOT (as the gateway's non-streamed responses); {@link MultiFactorStreamingChatModel} does.
 * The response's metadata is a {@link MultiFactorChatResponseMetadata}. A call's
 * {@link MultiFactorChatRequestParameters} give its session key, priority and TTFT/TPOT bounds. The delegates must not retry on their own
 * ({@code maxRetries(0)}).
 * <p>
 * This class is threadsafe: each call has its own flow.
 */
public final class MultiFactorChatModel implements ChatModel
{
    private final MultiFactorModelBuilder<ChatModel, MultiFactorChatModel> routing;

    private MultiFactorChatModel(final MultiFactorModelBuilder<ChatModel, MultiFactorChatModel> routing)
    {
        this.routing = routing;
    }

    /** @return a builder: an engine ({@code host} or {@code engine}) and the delegates. */
    public static MultiFactorModelBuilder<ChatModel, MultiFactorChatModel> builder()
    {
        return new MultiFactorModelBuilder<>(MultiFactorChatModel::new);
    }

    /**
     * @throws RoutingRefusedException when no decision is named or no candidate can be called.
     * @throws RateLimitException when a sheddable call was shed by the decision's admission (its cause: the
     *     {@link RoutingRefusedException}, status 429).
     */
    @Override
    public ChatResponse doChat(final ChatRequest request)
    {
        final DelegateCall<ChatModel> call = routing.newCall();
        Prompts.begin(call, request);
        while (true)
        {
            final ChatResponse response;
            try
            {
                final ChatRequest routed = Prompts.forDelegate(request, call.providerModelId());
                call.sent();
                response = call.delegate().chat(routed);
            }
            catch (final RuntimeException | Error ex)
            {
                if (call.retryAfter(ex))
                {
                    continue;
                }
                throw ex;
            }
            call.complete();
            return MultiFactorChatResponseMetadata.wrap(response, call);
        }
    }
}
