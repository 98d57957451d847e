package example;

import io.multifactor.spring.ai.ConversationSessionAdvisor;
import io.multifactor.spring.ai.MultiFactorChatModel;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The delegates (one per model of the routing file, retries off) and a ChatClient over the routing model. */
@Configuration(proxyBeanMethods = false)
public class ChatModels
{
    @Bean
    public ChatModel small(@Value("${example.small-url}") final String baseUrl)
    {
        return openAi(baseUrl);
    }

    @Bean
    public ChatModel large(@Value("${example.large-url}") final String baseUrl)
    {
        return openAi(baseUrl);
    }

    private static ChatModel openAi(final String baseUrl)
    {
        return OpenAiChatModel.builder()
            .options(OpenAiChatOptions.builder()
                .baseUrl(baseUrl)
                .apiKey(System.getenv().getOrDefault("OPENAI_API_KEY", "none"))
                .maxRetries(0) // the routing model's attempts replace the client's retries
                .build())
            .build();
    }

    @Bean
    public ChatClient chatClient(final MultiFactorChatModel router, final ConversationSessionAdvisor sessions)
    {
        return ChatClient.builder(router).defaultAdvisors(sessions).build();
    }
}
