package io.multifactor.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.multifactor.config.ConfigLoader;
import io.multifactor.fakes.CallOverhead;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.serving.EngineHost;

import java.time.Duration;

/**
 * Measures (not a JMH benchmark, not a test) the routing overhead of {@link MultiFactorChatModel} per call with
 * {@link CallOverhead}: the CPU of a routed call minus that of calling the same delegate directly, in interleaved
 * blocks, (1) with LangChain4j's {@code OpenAiChatModel} against a fake model server on loopback and (2) with an
 * in-process delegate that answers at once (the routing work alone: select, lease, request rewrite, metadata), and
 * prints a verdict line against 20 us for each. Arguments: HTTP calls per block (default 100), pairs of blocks measured
 * (default 30) and warm-up calls of each side (default 15,000: the JIT compiles the routing code fully only after about
 * 10,000 calls); the in-process blocks and warm-up are ten times larger. Run from the repository's root after
 * {@code mvn -o -B -pl mf-langchain4j -am test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * -Dmdep.includeScope=test} (docs/langchain4j.md, "What routing costs", has the command).
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
            final ChatModel http = OpenAiChatModel.builder().baseUrl("http://127.0.0.1:" + servers.port("m") + "/v1")
                .apiKey("none").modelName("m").maxRetries(0).timeout(Duration.ofSeconds(10)).build();
            final ChatResponse canned = ChatResponse.builder().aiMessage(AiMessage.from("hello")).build();
            final ChatModel inProcess = new ChatModel()
            {
                @Override
                public ChatResponse doChat(final ChatRequest request)
                {
                    return canned;
                }
            };
            measure("LangChain4j OpenAiChatModel on a fake server", http, callsPerBlock, warmUpCalls, pairs);
            measure("LangChain4j in-process delegate", inProcess, callsPerBlock * 10, warmUpCalls * 10, pairs);
        }
    }

    private static void measure(final String what, final ChatModel delegate, final int callsPerBlock,
        final int warmUpCalls, final int pairs) throws Exception
    {
        try (EngineHost host = EngineHost.start(ConfigLoader.load("overhead.yaml", CallOverhead.ROUTER_YAML, null), null,
            null, null))
        {
            final ChatModel routed = MultiFactorChatModel.builder().host(host).delegate("m", delegate)
                .delegate("n", delegate).build();
            // The same prompt both ways; the direct call names the model the routed one is sent to.
            final ChatRequest toDecision = ChatRequest.builder().messages(UserMessage.from("Say hello")).modelName("d")
                .maxOutputTokens(8).build();
            final ChatRequest toModel = ChatRequest.builder().messages(UserMessage.from("Say hello")).modelName("m")
                .maxOutputTokens(8).build();
            final CallOverhead figures = CallOverhead.measure(what, () -> delegate.chat(toModel),
                () -> routed.chat(toDecision), callsPerBlock, warmUpCalls, pairs);
            System.out.println(figures.report());
            System.out.println(figures.verdict());
        }
    }
}
