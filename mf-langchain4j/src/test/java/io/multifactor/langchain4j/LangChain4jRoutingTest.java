package io.multifactor.langchain4j;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.api.Priority;
import io.multifactor.config.ConfigLoader;
import io.multifactor.fakes.RoutingFleet;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.EngineHost;
import io.multifactor.serving.RoutingRefusedException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LangChain4jRoutingTest
{
    static RoutingFleet backends;

    EngineHost host;

    @BeforeAll
    static void startFakes() throws IOException
    {
        backends = RoutingFleet.start(7);
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

    EngineHost start() throws InvalidConfigurationException
    {
        host = EngineHost.start(ConfigLoader.load("router.yaml", config(), null), null, null, null);
        return host;
    }

    static String baseUrl(final String model)
    {
        return "http://127.0.0.1:" + (backends.port(model)) + "/v1";
    }

    static StreamingChatModel streaming(final String model)
    {
        return OpenAiStreamingChatModel.builder().baseUrl(baseUrl(model)).apiKey("test").modelName("unset")
            .timeout(Duration.ofSeconds(20)).build();
    }

    static ChatModel whole(final String model)
    {
        return OpenAiChatModel.builder().baseUrl(baseUrl(model)).apiKey("test").modelName("unset").maxRetries(0)
            .timeout(Duration.ofSeconds(20)).build();
    }

    Map<String, StreamingChatModel> streamingDelegates()
    {
        return Map.of("fast", streaming("fast"), "other", streaming("other"), "degrading", streaming("degrading"),
            "dead", streaming("dead"));
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

    static ChatRequest request(final String decision)
    {
        return ChatRequest.builder().messages(UserMessage.from("Say hello in eight words")).modelName(decision)
            .maxOutputTokens(16).build();
    }

    /** Collects one streamed response. */
    static final class Collector implements StreamingChatResponseHandler
    {
        final StringBuilder text = new StringBuilder();
        final AtomicInteger partials = new AtomicInteger();
        final CompletableFuture<ChatResponse> done = new CompletableFuture<>();

        @Override
        public void onPartialResponse(final String partialResponse)
        {
            partials.incrementAndGet();
            synchronized (text)
            {
                text.append(partialResponse);
            }
        }

        @Override
        public void onCompleteResponse(final ChatResponse completeResponse)
        {
            done.complete(completeResponse);
        }

        @Override
        public void onError(final Throwable error)
        {
            done.completeExceptionally(error);
        }
    }

    @Test
    void shouldPassTheStreamThroughMeasureItAndSayWhatItChose() throws Exception
    {
        start();
        final AtomicReference<String> sentModel = new AtomicReference<>();
        final StreamingChatModel fast = streaming("fast");
        final StreamingChatModel recording = new StreamingChatModel()
        {
            @Override
            public void doChat(final ChatRequest request, final StreamingChatResponseHandler handler)
            {
                sentModel.set(request.modelName());
                fast.chat(request, handler);
            }
        };
        final MultiFactorStreamingChatModel model = MultiFactorStreamingChatModel.builder().host(host)
            .delegate("fast", recording).build();
        final Collector collector = new Collector();
        model.chat(request("chat"), collector);
        final ChatResponse response = collector.done.get(30, TimeUnit.SECONDS);
        assertThat(collector.partials.get()).isEqualTo(8);
        assertThat(response.aiMessage().text()).isEqualTo(collector.text.toString()).isNotBlank();
        assertThat(sentModel.get()).as("the caller's model replaced by provider_model_id").isEqualTo("acme/fast-7b");
        final MultiFactorChatResponseMetadata metadata = (MultiFactorChatResponseMetadata)response.metadata();
        assertThat(metadata.selectedModel()).isEqualTo("fast");
        assertThat(metadata.decision()).isEqualTo("chat");
        assertThat(metadata.attempts()).isEqualTo(1);
        assertThat(metadata.explainJson()).contains("\"fast\"");
        assertThat(inflight()).isZero();
        host.engine().refreshNow();
        final double ttftMs = host.engine().explain(host.engine().decisionId("chat"), null).candidates().get(0).ttftMs();
        assertThat(ttftMs).as("TTFT recorded from the stream").isGreaterThanOrEqualTo(4.0);
    }

    @Test
    void shouldSkipADeadModelBeforeTheFirstTokenAndReportItsFailure() throws Exception
    {
        start();
        final MultiFactorStreamingChatModel model = MultiFactorStreamingChatModel.builder().host(host)
            .delegates(streamingDelegates()).build();
        final Collector collector = new Collector();
        model.chat(request("dead-first"), collector);
        final ChatResponse response = collector.done.get(30, TimeUnit.SECONDS);
        final MultiFactorChatResponseMetadata metadata = (MultiFactorChatResponseMetadata)response.metadata();
        assertThat(metadata.selectedModel()).isEqualTo("fast");
        assertThat(metadata.attempts()).isEqualTo(2);
        assertThat(collector.partials.get()).isEqualTo(8);
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldRouteWholeResponsesAndRetryADeadModel() throws Exception
    {
        start();
        final MultiFactorChatModel model = MultiFactorChatModel.builder().host(host)
            .delegates(Map.of("fast", whole("fast"), "dead", whole("dead"))).build();
        final ChatResponse response = model.chat(request("dead-first"));
        assertThat(response.aiMessage().text()).isNotBlank();
        final MultiFactorChatResponseMetadata metadata = (MultiFactorChatResponseMetadata)response.metadata();
        assertThat(metadata.selectedModel()).isEqualTo("fast");
        assertThat(metadata.attempts()).isEqualTo(2);
        assertThat(inflight()).isZero();
        final MultiFactorChatModel onlyDead = MultiFactorChatModel.builder().host(host).maxAttempts(1)
            .delegates(Map.of("dead", whole("dead"))).build();
        assertThatThrownBy(() -> onlyDead.chat(request("dead-first"))).isNotInstanceOf(RoutingRefusedException.class);
        assertThat(inflight()).isZero();
        assertThatThrownBy(() -> onlyDead.chat(request("no-such-decision")))
            .isInstanceOfSatisfying(RoutingRefusedException.class, ex -> assertThat(ex.status()).isEqualTo(404))
            .hasMessageContaining("dead-first");
    }

    @Test
    void shouldMoveTrafficAwayFromADegradingModel() throws Exception
    {
        start();
        final Map<String, StreamingChatModel> delegates = streamingDelegates();
        final MultiFactorStreamingChatModel model = MultiFactorStreamingChatModel.builder().host(host)
            .delegates(delegates).build();
        // The clients warm first (a cold client's first calls are slow on a busy machine and would weigh in the
        // window), then concurrent calls spread over both models (the load factor), so both have observations.
        for (final String name : List.of("degrading", "other"))
        {
            for (int i = 0; i < 3; i++)
            {
                final Collector direct = new Collector();
                delegates.get(name).chat(request("unused"), direct);
                direct.done.get(30, TimeUnit.SECONDS);
            }
        }
        for (int round = 0; round < 3; round++)
        {
            final Collector[] warmUp = new Collector[6];
            for (int i = 0; i < warmUp.length; i++)
            {
                warmUp[i] = new Collector();
                model.chat(request("latency"), warmUp[i]);
            }
            for (final Collector collector : warmUp)
            {
                collector.done.get(30, TimeUnit.SECONDS);
            }
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
            final Collector collector = new Collector();
            model.chat(request("latency"), collector);
            final MultiFactorChatResponseMetadata metadata =
                (MultiFactorChatResponseMetadata)collector.done.get(30, TimeUnit.SECONDS).metadata();
            chosen.computeIfAbsent(metadata.selectedModel(), k -> new AtomicInteger()).incrementAndGet();
            explain = metadata.explainJson();
        }
        assertThat(chosen.getOrDefault("other", new AtomicInteger()).get()).as("%s, last: %s", chosen, explain)
            .isGreaterThanOrEqualTo(18);
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldEndTheLeaseWhenTheCallerCancelsThroughTheStreamingHandle() throws Exception
    {
        start();
        final MultiFactorStreamingChatModel model = MultiFactorStreamingChatModel.builder().host(host)
            .delegates(streamingDelegates()).build();
        final CountDownLatch cancelled = new CountDownLatch(1);
        final AtomicReference<Long> inflightAtFirstChunk = new AtomicReference<>();
        final AtomicInteger completes = new AtomicInteger();
        model.chat(request("chat"), new StreamingChatResponseHandler()
        {
            @Override
            public void onPartialResponse(final PartialResponse partialResponse, final PartialResponseContext context)
            {
                if (inflightAtFirstChunk.get() == null)
                {
                    inflightAtFirstChunk.set(inflight());
                    context.streamingHandle().cancel();
                    assertThat(context.streamingHandle().isCancelled()).isTrue();
                    cancelled.countDown();
                }
            }

            @Override
            public void onCompleteResponse(final ChatResponse completeResponse)
            {
                completes.incrementAndGet();
            }

            @Override
            public void onError(final Throwable error)
            {
            }
        });
        assertThat(cancelled.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(inflightAtFirstChunk.get()).isEqualTo(1L);
        assertThat(inflight()).isZero();
        assertThat(completes.get()).as("no completion after a cancel").isZero();
    }

    @Test
    void shouldLeaveNothingInFlightAfterTwoHundredConcurrentStreams() throws Exception
    {
        start();
        final MultiFactorStreamingChatModel model = MultiFactorStreamingChatModel.builder().host(host)
            .delegates(streamingDelegates()).build();
        final int calls = 200;
        final Collector[] collectors = new Collector[calls];
        final Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++)
        {
            final int first = t;
            threads[t] = new Thread(() ->
            {
                for (int i = first; i < calls; i += threads.length)
                {
                    collectors[i] = new Collector();
                    model.chat(request(i % 2 == 0 ? "latency" : "chat"), collectors[i]);
                }
            });
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        int partials = 0;
        for (final Collector collector : collectors)
        {
            collector.done.get(60, TimeUnit.SECONDS);
            partials += collector.partials.get();
        }
        assertThat(partials).isEqualTo(calls * 8);
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldRefuseADelegateForAModelTheConfigurationDoesNotHave() throws Exception
    {
        start();
        assertThatThrownBy(() -> MultiFactorChatModel.builder().host(host).delegate("fats", whole("fast")).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("did you mean \"fast\"");
        assertThatThrownBy(() -> MultiFactorChatModel.builder().host(host).delegate("fast", whole("fast"))
            .decision("chta").build()).hasMessageContaining("default decision \"chta\"");
    }

    static ChatRequest request(final MultiFactorChatRequestParameters.Builder parameters)
    {
        return ChatRequest.builder().messages(UserMessage.from("Say hello in eight words"))
            .parameters(parameters.maxOutputTokens(16).build()).build();
    }

    static String chosen(final ChatResponse response)
    {
        return ((MultiFactorChatResponseMetadata)response.metadata()).selectedModel();
    }

    @Test
    void shouldKeepACallsSessionOnTheModelThatServedIt() throws Exception
    {
        start();
        final MultiFactorChatModel model = MultiFactorChatModel.builder().host(host)
            .delegates(Map.of("fast", whole("fast"), "other", whole("other"))).build();
        final Set<String> withoutKey = new HashSet<>();
        for (int i = 0; i < 30; i++)
        {
            withoutKey.add(chosen(model.chat(request(MultiFactorChatRequestParameters.builder().modelName("sticky")))));
        }
        assertThat(withoutKey).as("two tied models, drawn at random").containsExactlyInAnyOrder("fast", "other");
        final Set<String> withKey = new HashSet<>();
        for (int i = 0; i < 12; i++)
        {
            withKey.add(chosen(model.chat(request(MultiFactorChatRequestParameters.builder().modelName("sticky")
                .sessionKey("conversation-7")))));
        }
        assertThat(withKey).as("12 turns of one session on one model").hasSize(1);
        final MultiFactorStreamingChatModel streaming = MultiFactorStreamingChatModel.builder().host(host)
            .delegates(streamingDelegates()).build();
        for (int i = 0; i < 4; i++)
        {
            final Collector collector = new Collector();
            streaming.chat(request(MultiFactorChatRequestParameters.builder().modelName("sticky")
                .sessionKey("conversation-7")), collector);
            assertThat(chosen(collector.done.get(30, TimeUnit.SECONDS))).as("streamed turns of the same session")
                .isEqualTo(withKey.iterator().next());
        }
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldShedASheddableCallUnderAdmissionWithLangChain4jsRateLimitException() throws Exception
    {
        start();
        final MultiFactorEngine engine = host.engine();
        final MultiFactorChatModel model = MultiFactorChatModel.builder().host(host)
            .delegates(Map.of("fast", whole("fast"))).build();
        final MultiFactorStreamingChatModel streaming = MultiFactorStreamingChatModel.builder().host(host)
            .delegates(streamingDelegates()).build();
        final long held = engine.begin(engine.modelId("fast"));
        try
        {
            final ChatRequest sheddable = request(MultiFactorChatRequestParameters.builder().modelName("guarded")
                .priority(Priority.SHEDDABLE));
            assertThatThrownBy(() -> model.chat(sheddable)).isInstanceOf(RateLimitException.class)
                .hasMessageContaining("shed")
                .cause().isInstanceOfSatisfying(RoutingRefusedException.class, ex -> assertThat(ex.status()).isEqualTo(429));
            final Collector streamed = new Collector();
            streaming.chat(sheddable, streamed);
            assertThatThrownBy(() -> streamed.done.get(30, TimeUnit.SECONDS)).cause()
                .isInstanceOf(RateLimitException.class);
            assertThat(inflight()).as("no lease taken for a shed call").isEqualTo(1);
            assertThat(chosen(model.chat(request(MultiFactorChatRequestParameters.builder().modelName("guarded")
                .priority(Priority.STANDARD))))).as("a standard call is never shed").isEqualTo("fast");
        }
        finally
        {
            engine.end(held);
        }
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldDropAModelSlowerThanTheCallsOwnTtftBound() throws Exception
    {
        start();
        final MultiFactorEngine engine = host.engine();
        for (int i = 0; i < 50; i++)
        {
            engine.recordTtftMs(engine.modelId("fast"), 300.0);
        }
        engine.refreshNow();
        final MultiFactorChatModel model = MultiFactorChatModel.builder().host(host)
            .delegates(Map.of("fast", whole("fast"), "other", whole("other"))).build();
        final Set<String> loose = new HashSet<>();
        for (int i = 0; i < 30; i++)
        {
            loose.add(chosen(model.chat(request(MultiFactorChatRequestParameters.builder().modelName("sticky")
                .maxTtftMs(5_000)))));
        }
        assertThat(loose).as("a bound both models meet drops neither").containsExactlyInAnyOrder("fast", "other");
        final MultiFactorStreamingChatModel streaming = MultiFactorStreamingChatModel.builder().host(host)
            .delegates(streamingDelegates()).build();
        for (int i = 0; i < 10; i++)
        {
            assertThat(chosen(model.chat(request(MultiFactorChatRequestParameters.builder().modelName("sticky")
                .maxTtftMs(100))))).as("fast's 300 ms TTFT breaks the call's 100 ms").isEqualTo("other");
            final Collector collector = new Collector();
            streaming.chat(request(MultiFactorChatRequestParameters.builder().modelName("sticky").maxTtftMs(100)),
                collector);
            assertThat(chosen(collector.done.get(30, TimeUnit.SECONDS))).isEqualTo("other");
        }
        assertThat(inflight()).isZero();
    }

    @Test
    void shouldKeepTheRoutingParametersThroughLangChain4jsMergeAndPassOnlyTheCommonOnes() throws Exception
    {
        start();
        final AtomicReference<ChatRequest> sent = new AtomicReference<>();
        final ChatModel fast = whole("fast");
        final ChatModel recording = new ChatModel()
        {
            @Override
            public ChatResponse doChat(final ChatRequest request)
            {
                sent.set(request);
                return fast.chat(request);
            }
        };
        final MultiFactorChatModel model = MultiFactorChatModel.builder().host(host).delegate("fast", recording)
            .build();
        final MultiFactorChatRequestParameters parameters = MultiFactorChatRequestParameters.builder()
            .modelName("chat").temperature(0.2).sessionKey("c").priority(Priority.CRITICAL).maxTpotMs(40).build();
        assertThat(parameters.overrideWith(ChatRequestParameters.builder().temperature(0.7).build()))
            .isInstanceOfSatisfying(MultiFactorChatRequestParameters.class, merged ->
            {
                assertThat(merged.temperature()).isEqualTo(0.7);
                assertThat(merged.sessionKey()).isEqualTo("c");
                assertThat(merged.priority()).isEqualTo(Priority.CRITICAL);
                assertThat(merged.maxTpotMs()).isEqualTo(40.0);
                assertThat(merged.maxTtftMs()).isNull();
            });
        assertThat(parameters.overrideWith(MultiFactorChatRequestParameters.builder().sessionKey("d")
            .priority(Priority.SHEDDABLE).build()))
            .isEqualTo(MultiFactorChatRequestParameters.builder().modelName("chat").temperature(0.2).sessionKey("d")
                .priority(Priority.SHEDDABLE).maxTpotMs(40).build());
        assertThat(chosen(model.chat(ChatRequest.builder().messages(UserMessage.from("hi")).parameters(parameters)
            .build()))).isEqualTo("fast");
        assertThat(sent.get().parameters()).as("the delegate gets LangChain4j's own parameters")
            .isNotInstanceOf(MultiFactorChatRequestParameters.class);
        assertThat(sent.get().modelName()).isEqualTo("acme/fast-7b");
        assertThat(sent.get().temperature()).isEqualTo(0.2);
        assertThatThrownBy(() -> MultiFactorChatRequestParameters.builder().priority(7))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("7");
        assertThatThrownBy(() -> MultiFactorChatRequestParameters.builder().maxTtftMs(-5))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxTtftMs").hasMessageContaining("-5");
        assertThat(inflight()).isZero();
    }
}
