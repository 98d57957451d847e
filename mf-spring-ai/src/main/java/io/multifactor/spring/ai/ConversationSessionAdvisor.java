package io.multifactor.spring.ai;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import reactor.core.publisher.Flux;

/**
 * A {@code ChatClient} advisor that copies the conversation id of a call (the advisor parameter
 * {@link ChatMemory#CONVERSATION_ID}, which Spring AI's chat-memory advisors read too) into the call's
 * {@link MultiFactorChatOptions#sessionKey()}, so that a conversation stays on the model that holds it. A session key
 * the call set itself is kept.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ConversationSessionAdvisor implements CallAdvisor, StreamAdvisor
{
    /** Runs just before Spring AI's chat-memory advisors (which read the same parameter). */
    public static final int ORDER = DEFAULT_CHAT_MEMORY_PRECEDENCE_ORDER - 1;

    /** Creates the advisor. */
    public ConversationSessionAdvisor()
    {
    }

    @Override
    public String getName()
    {
        return "multiFactorConversationSession";
    }

    @Override
    public int getOrder()
    {
        return ORDER;
    }

    @Override
    public ChatClientResponse adviseCall(final ChatClientRequest request, final CallAdvisorChain chain)
    {
        return chain.nextCall(withSessionKey(request));
    }

    @Override
    public Flux<ChatClientResponse> adviseStream(final ChatClientRequest request, final StreamAdvisorChain chain)
    {
        return chain.nextStream(withSessionKey(request));
    }

    static ChatClientRequest withSessionKey(final ChatClientRequest request)
    {
        final Object conversation = request.context().get(ChatMemory.CONVERSATION_ID);
        if (conversation == null)
        {
            return request;
        }
        final Prompt prompt = request.prompt();
        final ChatOptions options = prompt.getOptions();
        final MultiFactorChatOptions.Builder routed;
        if (options instanceof MultiFactorChatOptions)
        {
            if (((MultiFactorChatOptions)options).sessionKey() != null)
            {
                return request;
            }
            routed = ((MultiFactorChatOptions)options).mutate();
        }
        else
        {
            routed = MultiFactorChatOptions.builder();
            if (options != null)
            {
                routed.combineWith(options.mutate());
            }
        }
        final ChatOptions withKey = routed.sessionKey(conversation.toString()).build();
        return request.mutate().prompt(prompt.mutate().chatOptions(withKey).build()).build();
    }
}
