package io.multifactor.langchain4j;

import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialThinkingContext;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.PartialToolCallContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.chat.response.StreamingHandle;
import dev.langchain4j.model.output.TokenUsage;
import io.multifactor.serving.DelegateCall;
import io.multifactor.serving.RequestLifecycle;
import io.multifactor.serving.RoutingRefusedException;

/**
 * A LangChain4j {@link StreamingChatModel} that routes each call to one of several delegate streaming chat models, as
 * {@link MultiFactorChatModel} does, and measures the stream: TTFT from the call to the first partial response, TPOT
 * from the first to the last (divided by the usage's output tokens when the delegate reports them), both through the
 * serving layer's one stream meter. The lease ends exactly once: on the complete response, on an error (with the
 * status the error kept; before the first partial response it is retried on the next candidate while attempts remain,
 * never after), or when the caller cancels through the streaming handle its handler is given. A refused call
 * ({@link RoutingRefusedException}, or LangChain4j's {@link RateLimitException} for a call shed by admission) reaches
 * the handler's {@code onError}. A call's {@link MultiFactorChatRequestParameters} give its session key, priority and
 * TTFT/TPOT bounds.
 * <p>
 * This class is threadsafe: each call has its own flow; one call's callbacks come one at a time from its delegate.
 */
public final class MultiFactorStreamingChatModel implements StreamingChatModel
{
    private final MultiFactorModelBuilder<StreamingChatModel, MultiFactorStreamingChatModel> routing;

    private MultiFactorStreamingChatModel(
        final MultiFactorModelBuilder<StreamingChatModel, MultiFactorStreamingChatModel> routing)
    {
        this.routing = routing;
    }

    /** @return a builder: an engine ({@code host} or {@code engine}) and the delegates. */
    public static MultiFactorModelBuilder<StreamingChatModel, MultiFactorStreamingChatModel> builder()
    {
        return new MultiFactorModelBuilder<>(MultiFactorStreamingChatModel::new);
    }

    @Override
    public void doChat(final ChatRequest request, final StreamingChatResponseHandler handler)
    {
        final DelegateCall<StreamingChatModel> call = routing.newCall();
        try
        {
            Prompts.begin(call, request);
        }
        catch (final RoutingRefusedException | RateLimitException ex)
        {
            handler.onError(ex);
            return;
        }
        new Attempts(call, request, handler).next();
    }

    /**
     * The handler each attempt's delegate calls: measures, passes everything on, and ends or retries the attempt.
     * <p>
     * This class is threadsafe for a cancel from the caller's thread; the delegate's callbacks come one at a time.
     */
    private static final class Attempts implements StreamingChatResponseHandler
    {
        private final DelegateCall<StreamingChatModel> call;
        private final ChatRequest request;
        private final StreamingChatResponseHandler handler;

        Attempts(final DelegateCall<StreamingChatModel> call, final ChatRequest request,
            final StreamingChatResponseHandler handler)
        {
            this.call = call;
            this.request = request;
            this.handler = handler;
        }

        void next()
        {
            while (true)
            {
                try
                {
                    final ChatRequest routed = Prompts.forDelegate(request, call.providerModelId());
                    call.sent();
                    call.delegate().chat(routed, this);
                    return;
                }
                catch (final RuntimeException ex)
                {
                    // Thrown before the stream started (a delegate that validates up front): retried the same way.
                    if (!call.retryAfter(ex))
                    {
                        handler.onError(ex);
                        return;
                    }
                }
            }
        }

        @Override
        public void onPartialResponse(final String partialResponse)
        {
            onPartialResponse(new PartialResponse(partialResponse), new PartialResponseContext(new Handle(null)));
        }

        @Override
        public void onPartialResponse(final PartialResponse partialResponse, final PartialResponseContext context)
        {
            if (!call.open())
            {
                return;
            }
            if (partialResponse.text() != null && !partialResponse.text().isEmpty())
            {
                call.chunk();
            }
            handler.onPartialResponse(partialResponse, new PartialResponseContext(new Handle(context.streamingHandle())));
        }

        @Override
        public void onPartialThinking(final PartialThinking partialThinking, final PartialThinkingContext context)
        {
            handler.onPartialThinking(partialThinking, context);
        }

        @Override
        public void onPartialToolCall(final PartialToolCall partialToolCall, final PartialToolCallContext context)
        {
            handler.onPartialToolCall(partialToolCall, context);
        }

        @Override
        public void onCompleteToolCall(final CompleteToolCall completeToolCall)
        {
            handler.onCompleteToolCall(completeToolCall);
        }

        @Override
        public void onCompleteResponse(final ChatResponse completeResponse)
        {
            final TokenUsage usage = completeResponse.tokenUsage();
            if (usage != null && usage.outputTokenCount() != null)
            {
                call.usage(usage.outputTokenCount());
            }
            if (call.complete())
            {
                handler.onCompleteResponse(MultiFactorChatResponseMetadata.wrap(completeResponse, call));
            }
        }

        @Override
        public void onError(final Throwable error)
        {
            if (call.retryAfter(error))
            {
                next();
                return;
            }
            handler.onError(error);
        }

        /** The caller's handle: a cancel ends the lease (no status) and then cancels the delegate's stream. */
        private final class Handle implements StreamingHandle
        {
            private final StreamingHandle delegateHandle;

            Handle(final StreamingHandle delegateHandleOrNull)
            {
                this.delegateHandle = delegateHandleOrNull;
            }

            @Override
            public void cancel()
            {
                call.cancel();
                if (delegateHandle != null)
                {
                    delegateHandle.cancel();
                }
            }

            @Override
            public boolean isCancelled()
            {
                return call.flow().lifecycle().endKind() == RequestLifecycle.CANCELLED;
            }
        }
    }
}
