package io.multifactor.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.serving.DelegateCall;
import io.multifactor.serving.RoutingRefusedException;
import io.multifactor.serving.ServingError;

import java.util.List;

/**
 * What both routing models read from and write into a LangChain4j request: the token counts the selection uses, the
 * caller's model parameter, and the request rewritten for the chosen model.
 * <p>
 * This class is stateless and threadsafe.
 */
final class Prompts
{
    private Prompts()
    {
    }

    /**
     * Starts the call's first attempt from the request (its model parameter may name the decision; its
     * {@link MultiFactorChatRequestParameters} give the session key, priority and bounds).
     *
     * @throws RateLimitException when the call was shed (status 429, as LangChain4j's clients report a 429; its cause
     *     is the {@link RoutingRefusedException}).
     * @throws RoutingRefusedException when no decision is named or no candidate can be called.
     */
    static void begin(final DelegateCall<?> call, final ChatRequest request)
    {
        final ChatRequestParameters parameters = request.parameters();
        if (parameters instanceof MultiFactorChatRequestParameters)
        {
            final MultiFactorChatRequestParameters routing = (MultiFactorChatRequestParameters)parameters;
            call.options(routing.sessionKey(), routing.priority() == null ? Priority.STANDARD : routing.priority(),
                routing.maxTtftMs() == null ? 0.0 : routing.maxTtftMs(),
                routing.maxTpotMs() == null ? 0.0 : routing.maxTpotMs());
        }
        final Integer maxOutput = request.maxOutputTokens();
        try
        {
            call.begin(null, request.modelName(), DelegateCall.promptTokens(characters(request.messages())),
                maxOutput == null ? Request.NO_TOKENS : maxOutput);
        }
        catch (final RoutingRefusedException ex)
        {
            if (ex.status() == ServingError.OVERLOADED.status())
            {
                throw new RateLimitException(ex.getMessage(), ex);
            }
            throw ex;
        }
    }

    /**
     * The request with the chosen model's provider_model_id as its model parameter; multi-factor's own parameters are
     * not passed on (the delegate gets LangChain4j's common ones).
     */
    static ChatRequest forDelegate(final ChatRequest request, final String providerModelId)
    {
        final ChatRequestParameters parameters = request.parameters();
        final ChatRequestParameters routed = parameters instanceof MultiFactorChatRequestParameters ?
            ChatRequestParameters.builder().overrideWith(parameters).modelName(providerModelId).build() :
            parameters.overrideWith(ChatRequestParameters.builder().modelName(providerModelId).build());
        return request.toBuilder().parameters(routed).build();
    }

    static long characters(final List<ChatMessage> messages)
    {
        long characters = 0;
        for (int i = 0, n = messages.size(); i < n; i++)
        {
            final ChatMessage message = messages.get(i);
            if (message instanceof UserMessage)
            {
                for (final Content content : ((UserMessage)message).contents())
                {
                    if (content instanceof TextContent)
                    {
                        characters += ((TextContent)content).text().length();
                    }
                }
            }
            else if (message instanceof SystemMessage)
            {
                characters += ((SystemMessage)message).text().length();
            }
            else if (message instanceof AiMessage && ((AiMessage)message).text() != null)
            {
                characters += ((AiMessage)message).text().length();
            }
            else if (message instanceof ToolExecutionResultMessage)
            {
                characters += ((ToolExecutionResultMessage)message).text().length();
            }
        }
        return characters;
    }
}
