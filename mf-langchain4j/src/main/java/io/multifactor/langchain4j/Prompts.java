package io.multifactor.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import io.multifactor.api.Request;
import io.multifactor.serving.DelegateCall;

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

    /** Starts the call's first attempt from the request (its model parameter may name the decision). */
    static void begin(final DelegateCall<?> call, final ChatRequest request)
    {
        final Integer maxOutput = request.maxOutputTokens();
        call.begin(null, request.modelName(), DelegateCall.promptTokens(characters(request.messages())),
            maxOutput == null ? Request.NO_TOKENS : maxOutput);
    }

    /** The request with the chosen model's provider_model_id as its model parameter. */
    static ChatRequest forDelegate(final ChatRequest request, final String providerModelId)
    {
        final ChatRequestParameters model = ChatRequestParameters.builder().modelName(providerModelId).build();
        return request.toBuilder().parameters(request.parameters().overrideWith(model)).build();
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
