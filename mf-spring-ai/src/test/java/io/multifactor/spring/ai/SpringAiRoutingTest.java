package io.multifactor.spring.ai;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.fakes.RoutingFleet;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.DelegateCall;
import io.multifactor.serving.EngineHost;
import io.multifactor.serving.RoutingRefusedException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import reactor.core.publisher.Flux;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpringAiRoutingTest
{
    static RoutingFleet backends;

    EngineHost host;

    @BeforeAll
    static void startFakes() throws IOException
    {
        backends = RoutingFleet.start(11);
    }

    @AfterAll
    static void stopFakes()
    {
        backends.close();
    }

    @AfterEach
    void stopHost()
    {
        if (host != null)
        {
            host.close();
        }
    }

    static String config()
    {
        return backends.routerYaml();
    }

    void start() throws InvalidConfigurationException
    {
        host = EngineHost.start(ConfigLoader.load("router.yaml", config(), null), null, null, null);
    }

    static ChatModel openAi(final String model, final Integer maxRetries)
    {
        final int port = backends.port(model);
        return OpenAiChatModel.builder().options(OpenAiChatOptions.builder().baseUrl("http://127.0.0.1:" + port + "/v1")
            .apiKey("test").model("unset").maxRetries(maxRetries).timeout(Duration.ofSeconds(20)).build()).build();
    }

    static Map<String, ChatModel> delegates()
    {
        return Map.of("fast", openAi("fast", 0), "other", openAi("other", 0), "degrading", openAi("degrading", 0),
            "dead", openAi("dead", 0));
    }

    long inflight()
    {
        final MultiFactorEngine engine = host.engine();
        long sum = 0;
        for (final String model : List.of("fast", "other", "degrading", "dead"))
        {
            sum += engine.inflight(engine.modelId(model));
        }
        return sum;
    }

    static Prompt prompt(final String decision)
    {
        return new Prompt("Say hello in eight words", ChatOptions.builder().model(decision).maxTokens(16).build());
    }

    static String text(final ChatResponse response)
    {
        final String text = response.getResult() == null ? null : response.getResult().getOutput().getText();
        return text == null ? "" : text;
    }

    @Test
    void shouldStreamThroughMeasureAndSayWhatItChose() throws Exception
    {
        start();
        final AtomicReference<ChatOptions> sent = new AtomicReference<>();
        final ChatModel fast = openAi("fast", 0);
        final ChatModel recording = new ChatModel()
        {
            @Override
            public ChatResponse call(final Prompt prompt)
            {
                sent.set(prompt.getOptions());
                return fast.call(prompt);
            }

            @Override
            public Flux<ChatResponse> stream(final Prompt prompt)
            {
                sent.set(prompt.getOptions());
                return fast.stream(prompt);
            }

            @Override
            public ChatOptions getOptions()
            {
                return fast.getOptions();
            }
        };
        final MultiFactorChatModel model = new MultiFactorChatModel(host, Map.of("fast", recording), null, 2);
        final List<ChatResponse> chunks = model.stream(prompt("chat")).collectList().block(Duration.ofSeconds(30));
        final StringBuilder text = new StringBuilder();
        int withText = 0;
        for (final ChatResponse chunk : chunks)
        {
            withText += text(chunk).isEmpty() ? 0 : 1;
            text.append(text(chunk));
            assertThat(chunk.getMetadata().<String>get(DelegateCall.METADATA_MODEL)).isEqualTo("fast");
        }
        assertThat(withText).isEqualTo(8);
        assertThat(text.toString()).isNotBlank();
        assertThat(sent.get().getModel()).as("provider_model_id replaces the caller's model").isEqualTo("acme/fast-7b");
        assertThat(sent.get().getMaxTokens()).isEqualTo(16);
        final ChatResponse last = chunks.get(chunks.size() - 1);
        assertThat(last.getMetadata().<String>get(DelegateCall.METADATA_DECISION)).isEqualTo("chat");
        assertThat(last.getMetadata().<Integer>get(DelegateCall.METADATA_ATTEMPTS)).isEqualTo(1);
        assertThat(last.getMetadata().<String>get(DelegateCall.METADATA_EXPLAIN)).contains("\"fast\"");
        assertThat(inflight()).isZero();
        host.engine().refreshNow();
        assertThat(host.engine().explain(host.engine().decisionId("chat"), null).candidates().get(0).ttftMs())
            .as("TTFT measured from the Flux").isGreaterThanOrEqualTo(4.0);
        final ChatResponse whole = model.call(prompt("chat"));
        assertThat(text(whole)).isNotBlank();
        assertThat(whole.getMetadata().<String>get(DelegateCall.METADATA_MODEL)).isEqualTo("fast");
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldSkipADeadModelBeforeTheFirstTokenWhenCallingAndStreaming() throws Exception
    {
        start();
        final MultiFactorChatModel model = new MultiFactorChatModel(host, delegates(), null, 2);
        final ChatResponse whole = model.call(prompt("dead-first"));
        assertThat(whole.getMetadata().<String>get(DelegateCall.METADATA_MODEL)).isEqualTo("fast");
        assertThat(whole.getMetadata().<Integer>get(DelegateCall.METADATA_ATTEMPTS)).isEqualTo(2);
        final List<ChatResponse> chunks = model.stream(prompt("dead-first")).collectList().block(Duration.ofSeconds(30));
        assertThat(chunks.get(chunks.size() - 1).getMetadata().<Integer>get(DelegateCall.METADATA_ATTEMPTS)).isEqualTo(2);
        assertThat(inflight()).isZero();
        final MultiFactorChatModel once = new MultiFactorChatModel(host, Map.of("dead", openAi("dead", 0)), null, 1);
        assertThatThrownBy(() -> once.call(prompt("dead-first"))).isNotInstanceOf(RoutingRefusedException.class);
        assertThatThrownBy(() -> once.stream(prompt("dead-first")).blockLast(Duration.ofSeconds(30)))
            .isNotInstanceOf(RoutingRefusedException.class);
        assertThatThrownBy(() -> once.call(prompt("nothing"))).isInstanceOfSatisfying(RoutingRefusedException.class,
            ex -> assertThat(ex.status()).isEqualTo(404));
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldEndTheLeaseWhenTheSubscriberCancels() throws Exception
    {
        start();
        final MultiFactorChatModel model = new MultiFactorChatModel(host, delegates(), null, 2);
        final AtomicInteger seen = new AtomicInteger();
        final AtomicReference<Long> inflightWhileStreaming = new AtomicReference<>();
        model.stream(prompt("chat"))
            .filter(chunk -> !text(chunk).isEmpty())
            .doOnNext(chunk ->
            {
                if (seen.incrementAndGet() == 1)
                {
                    inflightWhileStreaming.set(inflight());
                }
            })
            .take(2)
            .blockLast(Duration.ofSeconds(30));
        assertThat(inflightWhileStreaming.get()).isEqualTo(1L);
        assertThat(seen.get()).isEqualTo(2);
        assertThat(inflight()).as("the cancel ended the lease").isZero();
    }

    @Test
    void shouldLeaveNothingInFlightAfterTwoHundredConcurrentStreams() throws Exception
    {
        start();
        final MultiFactorChatModel model = new MultiFactorChatModel(host, delegates(), null, 2);
        final Long chunks = Flux.range(0, 200)
            .flatMap(i -> model.stream(prompt(i % 2 == 0 ? "chat" : "latency")).filter(c -> !text(c).isEmpty())
                .count(), 200)
            .reduce(0L, Long::sum)
            .block(Duration.ofSeconds(90));
        assertThat(chunks).isEqualTo(200L * 8);
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldMoveTrafficAwayFromADegradingModel() throws Exception
    {
        start();
        // The clients warm first (a cold client's first calls are slow on a busy machine and would weigh in the
        // window), then concurrent calls spread over both models (the load factor), so both have observations.
        final Map<String, ChatModel> delegates = delegates();
        for (final String name : List.of("degrading", "other"))
        {
            for (int i = 0; i < 3; i++)
            {
                delegates.get(name).stream(new Prompt("Say hello")).blockLast(Duration.ofSeconds(30));
            }
        }
        final MultiFactorChatModel model = new MultiFactorChatModel(host, delegates, null, 2);
        for (int round = 0; round < 3; round++)
        {
            Flux.range(0, 6).flatMap(i -> model.stream(prompt("latency")).then(), 6).blockLast(Duration.ofSeconds(30));
        }
        final MultiFactorEngine engine = host.engine();
        final int latency = engine.decisionId("latency");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Double.isNaN(engine.explain(latency, null).candidates().get(0).ttftMs()) ||
            Double.isNaN(engine.explain(latency, null).candidates().get(1).ttftMs()))
        {
            assertThat(System.nanoTime()).as("both models observed").isLessThan(deadline);
            Thread.sleep(10);
        }
        final Map<String, AtomicInteger> chosen = new ConcurrentHashMap<>();
        String explain = null;
        for (int i = 0; i < 20; i++)
        {
            final ChatResponse last = model.stream(prompt("latency")).blockLast(Duration.ofSeconds(30));
            chosen.computeIfAbsent(last.getMetadata().get(DelegateCall.METADATA_MODEL), k -> new AtomicInteger())
                .incrementAndGet();
            explain = last.getMetadata().get(DelegateCall.METADATA_EXPLAIN);
        }
        assertThat(chosen.getOrDefault("other", new AtomicInteger()).get()).as("%s, last: %s", chosen, explain)
            .isGreaterThanOrEqualTo(18);
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldWarnAboutDelegatesThatRetryOnTheirOwn() throws Exception
    {
        start();
        assertThat(new MultiFactorChatModel(host, delegates(), null, 2).retryWarnings()).isEmpty();
        final List<String> warnings = new MultiFactorChatModel(host,
            Map.of("fast", openAi("fast", null), "other", openAi("other", 3)), null, 2).retryWarnings();
        assertThat(warnings).hasSize(2).allSatisfy(w -> assertThat(w).contains("maxRetries(0)"));
        assertThatThrownBy(() -> new MultiFactorChatModel(host, Map.of("fats", openAi("fast", 0)), null, 2))
            .hasMessageContaining("did you mean \"fast\"");
    }

    @Test
    void shouldCopyTheConversationIdIntoTheSessionKeyThroughTheAdvisor() throws Exception
    {
        start();
        final AtomicReference<ChatOptions> seen = new AtomicReference<>();
        final MultiFactorChatModel router = new MultiFactorChatModel(host, Map.of("fast", openAi("fast", 0)), "chat", 2);
        final ChatModel recordingRouter = new ChatModel()
        {
            @Override
            public ChatResponse call(final Prompt prompt)
            {
                seen.set(prompt.getOptions());
                return router.call(prompt);
            }

            @Override
            public ChatOptions getOptions()
            {
                return router.getOptions();
            }
        };
        final ChatClient client = ChatClient.builder(recordingRouter).defaultAdvisors(new ConversationSessionAdvisor())
            .build();
        final ChatResponse response = client.prompt().user("hello")
            .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "conversation-42")).call().chatResponse();
        assertThat(text(response)).isNotBlank();
        assertThat(response.getMetadata().<String>get(DelegateCall.METADATA_MODEL)).isEqualTo("fast");
        assertThat(seen.get()).isInstanceOfSatisfying(MultiFactorChatOptions.class,
            options -> assertThat(options.sessionKey()).isEqualTo("conversation-42"));
        client.prompt().user("hello").options(MultiFactorChatOptions.builder().sessionKey("own"))
            .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "conversation-42")).call().content();
        assertThat(((MultiFactorChatOptions)seen.get()).sessionKey()).as("the call's own key is kept").isEqualTo("own");
        client.prompt().user("hello").call().content();
        assertThat(seen.get() instanceof MultiFactorChatOptions && ((MultiFactorChatOptions)seen.get()).sessionKey() != null)
            .as("no conversation id: nothing copied").isFalse();
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldKeepACallsSessionKeyOnTheModelThatServedIt() throws Exception
    {
        start();
        final MultiFactorChatModel router = new MultiFactorChatModel(host, delegates(), "sticky", 2);
        final java.util.Set<String> withoutKey = new java.util.HashSet<>();
        for (int i = 0; i < 30; i++)
        {
            withoutKey.add(router.call(prompt("sticky")).getMetadata().<String>get(DelegateCall.METADATA_MODEL));
        }
        assertThat(withoutKey).as("two tied models, drawn at random").containsExactlyInAnyOrder("fast", "other");
        final java.util.Set<String> withKey = new java.util.HashSet<>();
        for (int i = 0; i < 12; i++)
        {
            final Prompt turn = new Prompt("Say hello in eight words",
                MultiFactorChatOptions.builder().sessionKey("conversation-7").maxTokens(16).build());
            withKey.add(router.call(turn).getMetadata().<String>get(DelegateCall.METADATA_MODEL));
        }
        assertThat(withKey).as("12 turns of one session on one model").hasSize(1);
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldShedASheddableCallUnderAdmissionButNeverAStandardOne() throws Exception
    {
        start();
        final MultiFactorEngine engine = host.engine();
        final MultiFactorChatModel router = new MultiFactorChatModel(host, delegates(), "guarded", 2);
        final long held = engine.begin(engine.modelId("fast"));
        try
        {
            final Prompt sheddable = new Prompt("Say hello in eight words", MultiFactorChatOptions.builder()
                .priority(io.multifactor.api.Priority.SHEDDABLE).maxTokens(16).build());
            assertThatThrownBy(() -> router.call(sheddable)).isInstanceOfSatisfying(RoutingRefusedException.class,
                ex -> assertThat(ex.status()).isEqualTo(429));
            final Prompt standard = new Prompt("Say hello in eight words",
                MultiFactorChatOptions.builder().maxTokens(16).build());
            assertThat(text(router.call(standard))).as("a standard call is never shed").isNotBlank();
        }
        finally
        {
            engine.end(held);
        }
        assertThat(inflight()).isZero();
    }
}
