package io.multifactor.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.multifactor.config.ConfigLoader;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.serving.EngineHost;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;

/**
 * Measures once (not a JMH benchmark, not a test) the routing overhead of {@link MultiFactorChatModel} per call: the
 * calling thread's CPU time of a routed call minus that of calling the delegate directly, in alternating rounds, (1)
 * with LangChain4j's {@code OpenAiChatModel} against a fake model server on loopback and (2) with an in-process delegate
 * that answers at once (the routing work alone: select, lease, request rewrite, metadata). Figures from a busy machine
 * are indicative only. {@code main} takes the number of HTTP calls measured (default 2,000; ten times as many
 * in-process ones).
 * <p>
 * This class is not threadsafe: one thread runs it.
 */
public final class RoutingOverhead
{
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private RoutingOverhead()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int calls = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        try (FakeBackends servers = FakeBackends.start(new BackendsProfile(1, List.of(
            FakeModelProfile.steady("m", 0.01, 0.01, 1024, 1)))))
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
            report("OpenAiChatModel on a fake server", http, calls);
            report("in-process delegate", inProcess, calls * 10);
        }
    }

    private static void report(final String what, final ChatModel delegate, final int calls) throws Exception
    {
        final EngineHost host = EngineHost.start(ConfigLoader.load("overhead.yaml", String.join("\n",
            "models:",
            "  - {name: m, quality_score: 0.9}",
            "  - {name: n, quality_score: 0.5}",
            "decisions:",
            "  - name: d",
            "    modelRefs: [{model: m}, {model: n}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 0.5, latency: 0.3, load: 0.2}}}",
            ""), null), null, null, null);
        try
        {
            final ChatModel routed = MultiFactorChatModel.builder().host(host).delegate("m", delegate)
                .delegate("n", delegate).build();
            final ChatRequest request = ChatRequest.builder().messages(UserMessage.from("Say hello")).modelName("d")
                .maxOutputTokens(8).build();
            long directNs = 0;
            long routedNs = 0;
            final int rounds = 10;
            for (int round = -2; round < rounds; round++)
            {
                final long d = cpu(delegate, request, calls / rounds);
                final long r = cpu(routed, request, calls / rounds);
                if (round >= 0)
                {
                    directNs += d;
                    routedNs += r;
                }
            }
            final double perDirect = directNs / 1e3 / calls;
            final double perRouted = routedNs / 1e3 / calls;
            System.out.printf("%s: %d calls, calling-thread CPU per call: direct %.1f us, routed %.1f us, " +
                "overhead %.1f us%n", what, calls, perDirect, perRouted, perRouted - perDirect);
        }
        finally
        {
            host.close();
        }
    }

    private static long cpu(final ChatModel model, final ChatRequest request, final int calls)
    {
        final long start = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < calls; i++)
        {
            model.chat(request);
        }
        return THREADS.getCurrentThreadCpuTime() - start;
    }
}
