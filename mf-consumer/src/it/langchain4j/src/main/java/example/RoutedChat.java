package example;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.multifactor.langchain4j.MultiFactorChatRequestParameters;
import io.multifactor.langchain4j.MultiFactorChatResponseMetadata;
import io.multifactor.langchain4j.MultiFactorStreamingChatModel;
import io.multifactor.serving.EngineHost;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Routes one streamed question among OpenAI-compatible servers: java example.RoutedChat router.yaml model=url... */
public final class RoutedChat
{
    public static void main(final String[] args) throws Exception
    {
        final Map<String, StreamingChatModel> delegates = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++)
        {
            final String[] modelAndUrl = args[i].split("=", 2);
            delegates.put(modelAndUrl[0], OpenAiStreamingChatModel.builder()
                .baseUrl(modelAndUrl[1])
                .apiKey(System.getenv().getOrDefault("OPENAI_API_KEY", "none"))
                .modelName(modelAndUrl[0]) // replaced by the chosen model's provider_model_id
                .timeout(Duration.ofSeconds(30))
                .build());
        }
        // The engine, its refresh agent, and a watcher that reloads the file when it changes.
        try (EngineHost host = EngineHost.start(Path.of(args[0]), result -> { }))
        {
            final StreamingChatModel model = MultiFactorStreamingChatModel.builder()
                .host(host)
                .delegates(delegates)
                .build();
            final CompletableFuture<ChatResponse> done = new CompletableFuture<>();
            model.chat(ChatRequest.builder()
                .messages(UserMessage.from("Say hello"))
                .parameters(MultiFactorChatRequestParameters.builder()
                    .modelName("chat") // the decision
                    .maxOutputTokens(64)
                    .sessionKey("conversation-1") // the conversation's turns stay on one model (a session block)
                    .maxTtftMs(1000) // this call's own TTFT bound, tighter than the decision's 1500 ms
                    .build())
                .build(), new StreamingChatResponseHandler()
                {
                    @Override
                    public void onPartialResponse(final String text)
                    {
                        System.out.print(text);
                    }

                    @Override
                    public void onCompleteResponse(final ChatResponse response)
                    {
                        done.complete(response);
                    }

                    @Override
                    public void onError(final Throwable error)
                    {
                        done.completeExceptionally(error);
                    }
                });
            final MultiFactorChatResponseMetadata routing = (MultiFactorChatResponseMetadata)done.get().metadata();
            System.out.println();
            System.out.println("answered by " + routing.selectedModel() + " after " + routing.attempts() + " attempt(s)");
        }
    }
}
