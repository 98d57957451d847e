package io.multifactor.spring.ai;

import io.multifactor.config.ConfigLoader;
import io.multifactor.fakes.CallOverhead;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.serving.EngineHost;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Measures (not a JMH benchmark, not a test) the routing overhead of {@link MultiFactorChatModel#call} per call with
 * {@link CallOverhead}: the CPU of a routed call minus that of calling the same delegate directly, in interleaved
 * blocks, (1) with Spring AI's {@code OpenAiChatModel} against a fake model server on loopback and (2) with an
 * in-process delegate that answers at once (the routing work alone: select, lease, options merge, metadata), and prints
 * a verdict line against 20 us for each. Arguments as {@code io.multifactor.langchain4j.RoutingOverhead}'s: HTTP calls
 * per block (default 100), pairs of blocks measured (default 30) and warm-up calls of each side (default 15,000); the
 * in-process blocks and warm-up are ten times larger. docs/spring.md, "What routing costs", has the command.
 * <p>
 * This class is not threadsafe: one thread runs it.
 */
public final class RoutingOverhead
{
    private RoutingOverhead()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int callsPerBlock = CallOverhead.argument(args, 0);
        final int pairs = CallOverhead.argument(args, 1);
        final int warmUpCalls = CallOverhead.argument(args, 2);
        try (FakeBackends servers = CallOverhead.startServer())
        {
            final ChatModel http = OpenAiChatModel.builder().options(OpenAiChatOptions.builder()
                .baseUrl("http://127.0.0.1:" + servers.port("m") + "/v1").apiKey("none").model("m").maxRetries(0)
                .timeout(Duration.ofSeconds(10)).build()).build();
            final ChatResponse canned = new ChatResponse(List.of(new Generation(new AssistantMessage("hello"))));
            // Answers at once, with the HTTP client's default options: the routing model merges the same options.
            final ChatModel inProcess = new ChatModel()
            {
                @Override
                public ChatResponse call(final Prompt prompt)
                {
                    return canned;
                }

                @Override
                public ChatOptions getOptions()
                {
                    return http.getOptions();
                }
            };
            // A direct call passes what the routed one passes the client: its own options type (OpenAiChatModel uses a
            // prompt's options as they are, so a direct caller starts from its defaults too), model m, 8 tokens.
            final ChatOptions direct = http.getOptions().mutate().model("m").maxTokens(8).build();
            measure("Spring AI OpenAiChatModel on a fake server", http, direct, callsPerBlock, warmUpCalls, pairs);
            measure("Spring AI in-process delegate", inProcess, direct, callsPerBlock * 10, warmUpCalls * 10, pairs);
        }
    }

    private static void measure(final String what, final ChatModel delegate, final ChatOptions directOptions,
        final int callsPerBlock, final int warmUpCalls, final int pairs) throws Exception
    {
        try (EngineHost host = EngineHost.start(ConfigLoader.load("overhead.yaml", CallOverhead.ROUTER_YAML, null), null,
            null, null))
        {
            final MultiFactorChatModel routed = new MultiFactorChatModel(host, Map.of("m", delegate, "n", delegate),
                null, 2);
            // The same prompt both ways; the direct call names the model the routed one is sent to.
            final Prompt toDecision = new Prompt("Say hello", ChatOptions.builder().model("d").maxTokens(8).build());
            final Prompt toModel = new Prompt("Say hello", directOptions);
            final CallOverhead figures = CallOverhead.measure(what, () -> delegate.call(toModel),
                () -> routed.call(toDecision), callsPerBlock, warmUpCalls, pairs);
            System.out.println(figures.report());
            System.out.println(figures.verdict());
        }
    }
}
