package io.multifactor.serving;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Request;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.explain.Explanation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RequestLifecycleTest
{
    private static final long MS = 1_000_000L;

    private final LoadedConfig loaded = Engines.load(Engines.TWO_MODELS);

    @Test
    void shouldFeedEjectionWithTheStatusAndRetryAfterItEndsWithButNotWithACancel()
    {
        final LoadedConfig ejecting = Engines.load(Engines.TWO_MODELS.replace(
            "    provider_model_id: acme/a-7b\n",
            "    provider_model_id: acme/a-7b\n    reliability: {consecutive_5xx: 2, base_ejection_time: 10s}\n"));
        try (MultiFactorEngine engine = MultiFactorEngine.builder(ejecting.plans()).build())
        {
            final int d = engine.decisionId("d");
            final int a = engine.modelId("a");
            final RequestLifecycle lifecycle = new RequestLifecycle(engine);
            for (int i = 0; i < 3; i++)
            {
                assertThat(lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS)).isEqualTo(RequestLifecycle.STARTED);
                assertThat(lifecycle.modelId()).isEqualTo(a);
                lifecycle.cancel();
            }
            assertThat(engine.ejectedMillisLeft(a)).as("a cancel reports nothing").isNaN();
            lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
            lifecycle.fail(502, 0);
            lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
            lifecycle.fail(0, 0);
            assertThat(engine.ejectedMillisLeft(a)).as("two failures in a row").isGreaterThan(9_000.0);
            lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
            assertThat(lifecycle.modelId()).as("ejected: the other candidate").isEqualTo(engine.modelId("b"));
            lifecycle.fail(429, 20_000);
            assertThat(engine.ejectedMillisLeft(engine.modelId("b"))).as("b has no reliability").isNaN();
        }
    }

    @Test
    void shouldEndTheLeaseExactlyOnceUnderEveryOrderOfCompleteFailAndCancel()
    {
        final int[][] orders = permutations();
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final int d = engine.decisionId("d");
            final int a = engine.modelId("a");
            final RequestLifecycle other = new RequestLifecycle(engine);
            assertThat(other.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS)).isEqualTo(RequestLifecycle.STARTED);
            final RequestLifecycle lifecycle = new RequestLifecycle(engine);
            for (final int[] order : orders)
            {
                assertThat(lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS))
                    .isEqualTo(RequestLifecycle.STARTED);
                assertThat(lifecycle.modelId()).isEqualTo(a);
                assertThat(engine.inflight(a)).isEqualTo(2);
                lifecycle.onRequestSent(1);
                lifecycle.onResponseStatus(200, true);
                for (int i = 0; i < order.length; i++)
                {
                    final boolean ended = call(lifecycle, order[i]);
                    assertThat(ended).as("call %d of %s", i, java.util.Arrays.toString(order)).isEqualTo(i == 0);
                    assertThat(engine.inflight(a)).isEqualTo(1);
                }
                assertThat(lifecycle.endKind()).isEqualTo(kind(order[0]));
                assertThat(lifecycle.endStatus()).isEqualTo(order[0] == 0 ? 200 : order[0] == 1 ? 503 : 0);
                assertThat(lifecycle.retryAfterMs()).isEqualTo(order[0] == 1 ? 2_000 : 0);
            }
            other.cancel();
            assertThat(engine.inflight(a)).isZero();
        }
    }

    @Test
    @Timeout(30)
    void shouldEndEachLeaseOnceWhenThreadsRaceToEndIt() throws Exception
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final int d = engine.decisionId("d");
            final int a = engine.modelId("a");
            final int rounds = 2_000;
            final List<RequestLifecycle> lifecycles = new ArrayList<>();
            for (int i = 0; i < rounds; i++)
            {
                final RequestLifecycle lifecycle = new RequestLifecycle(engine);
                lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
                lifecycles.add(lifecycle);
            }
            assertThat(engine.inflight(a)).isEqualTo(rounds);
            final AtomicInteger wins = new AtomicInteger();
            final CountDownLatch go = new CountDownLatch(1);
            final List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 3; t++)
            {
                final int what = t;
                final Thread thread = new Thread(() ->
                {
                    try
                    {
                        go.await();
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    for (final RequestLifecycle lifecycle : lifecycles)
                    {
                        if (call(lifecycle, what))
                        {
                            wins.incrementAndGet();
                        }
                    }
                });
                thread.start();
                threads.add(thread);
            }
            go.countDown();
            for (final Thread thread : threads)
            {
                thread.join(TimeUnit.SECONDS.toMillis(20));
            }
            assertThat(wins.get()).isEqualTo(rounds);
            assertThat(engine.inflight(a)).isZero();
        }
    }

    @Test
    void shouldRecordTtftAtTheFirstContentChunkAndTpotOnCompletion()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final int d = engine.decisionId("d");
            final int a = engine.modelId("a");
            final RequestLifecycle lifecycle = new RequestLifecycle(engine);
            lifecycle.start(d, null, 10, 100);
            final long sent = 1_000 * MS;
            lifecycle.onRequestSent(sent);
            lifecycle.onResponseStatus(200, true);
            feed(lifecycle, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n", sent + 2 * MS);
            assertThat(lifecycle.ttftMicros()).isEqualTo(-1);
            feed(lifecycle, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n", sent + 50 * MS);
            assertThat(lifecycle.ttftMicros()).isEqualTo(50_000);
            feed(lifecycle, "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n", sent + 70 * MS);
            feed(lifecycle, "data: {\"choices\":[{\"delta\":{\"content\":\"c\"}}]}\n\ndata: [DONE]\n\n", sent + 90 * MS);
            assertThat(lifecycle.tpotMicros()).isEqualTo(-1);
            assertThat(lifecycle.complete(200)).isTrue();
            assertThat(lifecycle.tpotMicros()).isEqualTo(20_000);
            engine.refreshNow();
            final Explanation explanation = engine.explain(d, null);
            final Explanation.Candidate candidate = explanation.candidates().get(0);
            assertThat(candidate.model()).isEqualTo("a");
            assertThat(candidate.ttftMs()).isBetween(49.0, 51.0);
            assertThat(candidate.tpotMs()).isBetween(19.5, 20.5);
            assertThat(engine.inflight(a)).isZero();
        }
    }

    @Test
    void shouldMeasureDecodedChunksAsTheSameStreamsBytesWouldBe()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final int d = engine.decisionId("d");
            final RequestLifecycle bytes = new RequestLifecycle(engine);
            final RequestLifecycle chunks = new RequestLifecycle(engine);
            final long sent = 1_000 * MS;
            final long[] arrivals = {sent + 40 * MS, sent + 55 * MS, sent + 61 * MS, sent + 100 * MS};
            for (final boolean usage : new boolean[] {false, true})
            {
                bytes.start(d, null, 10, 100);
                chunks.start(d, null, 10, 100);
                bytes.onRequestSent(sent);
                chunks.onRequestSent(sent);
                bytes.onResponseStatus(200, true);
                assertThat(chunks.hasContent()).isFalse();
                for (final long at : arrivals)
                {
                    feed(bytes, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n", at);
                    chunks.onContentChunk(at);
                }
                if (usage)
                {
                    feed(bytes, "data: {\"choices\":[],\"usage\":{\"completion_tokens\":7}}\n\n", sent + 101 * MS);
                    chunks.onUsageCompletionTokens(7);
                }
                assertThat(chunks.hasContent()).isTrue();
                assertThat(chunks.ttftMicros()).isEqualTo(bytes.ttftMicros()).isEqualTo(40_000);
                assertThat(chunks.complete(200)).isTrue();
                assertThat(bytes.complete(200)).isTrue();
                assertThat(chunks.tpotMicros()).as("usage %s", usage).isEqualTo(bytes.tpotMicros())
                    .isEqualTo(usage ? 10_000 : 20_000);
                // After the end a late chunk changes nothing.
                chunks.onContentChunk(sent + 200 * MS);
                assertThat(chunks.meter().contentChunks()).isEqualTo(arrivals.length);
            }
            assertThat(engine.inflight(engine.modelId("a"))).isZero();
        }
    }

    @Test
    void shouldRecordNothingForANonStreamedResponseAnErrorStatusOrACancelledStream()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final int d = engine.decisionId("d");
            final RequestLifecycle lifecycle = new RequestLifecycle(engine);
            final String chunks = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n" +
                "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n";
            // Not streamed: the body is JSON, no chunk is measured.
            lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
            lifecycle.onRequestSent(MS);
            lifecycle.onResponseStatus(200, false);
            feed(lifecycle, chunks, 5 * MS);
            lifecycle.complete(200);
            assertThat(lifecycle.ttftMicros()).isEqualTo(-1);
            assertThat(lifecycle.tpotMicros()).isEqualTo(-1);
            // An error status that streams.
            lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
            lifecycle.onRequestSent(MS);
            lifecycle.onResponseStatus(500, true);
            feed(lifecycle, chunks, 5 * MS);
            lifecycle.fail(500, 0);
            assertThat(lifecycle.ttftMicros()).isEqualTo(-1);
            // A stream the client left: TTFT was measured, TPOT is not.
            lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS);
            lifecycle.onRequestSent(MS);
            lifecycle.onResponseStatus(200, true);
            feed(lifecycle, chunks, 5 * MS);
            lifecycle.cancel();
            feed(lifecycle, chunks, 9 * MS);
            assertThat(lifecycle.ttftMicros()).isEqualTo(4_000);
            assertThat(lifecycle.tpotMicros()).isEqualTo(-1);
            engine.refreshNow();
            assertThat(engine.explain(d, null).candidates().get(0).tpotMs()).isNaN();
        }
    }

    @Test
    void shouldExcludeModelsReportFailedOutcomesAndRefuseAStartBeforeTheEnd()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final int d = engine.decisionId("d");
            final int e = engine.decisionId("e");
            final int a = engine.modelId("a");
            final int b = engine.modelId("b");
            final RequestLifecycle lifecycle = new RequestLifecycle(engine);
            assertThat(lifecycle.start(d, new Exclusions().add(a), Request.NO_TOKENS, Request.NO_TOKENS))
                .isEqualTo(RequestLifecycle.STARTED);
            assertThat(lifecycle.modelId()).isEqualTo(b);
            assertThatThrownBy(() -> lifecycle.start(d, null, Request.NO_TOKENS, Request.NO_TOKENS))
                .isInstanceOf(IllegalStateException.class);
            lifecycle.complete(200);
            assertThat(lifecycle.start(e, new Exclusions().add(b), Request.NO_TOKENS, Request.NO_TOKENS))
                .isIn(RequestLifecycle.STARTED, RequestLifecycle.NO_MODEL);
            if (lifecycle.endKind() == RequestLifecycle.OPEN)
            {
                // on_no_candidates: cheapest picks the excluded model's only alternative... there is none: still b.
                lifecycle.cancel();
            }
            assertThat(lifecycle.start(99, null, Request.NO_TOKENS, Request.NO_TOKENS))
                .isEqualTo(RequestLifecycle.UNKNOWN_DECISION);
            assertThat(lifecycle.cancel()).isFalse();
            assertThat(engine.inflight(a)).isZero();
            assertThat(engine.inflight(b)).isZero();
        }
    }

    private static void feed(final RequestLifecycle lifecycle, final String text, final long nowNs)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        lifecycle.onResponseBytes(bytes, 0, bytes.length, nowNs);
    }

    /** 0 complete, 1 fail, 2 cancel. */
    private static boolean call(final RequestLifecycle lifecycle, final int what)
    {
        switch (what)
        {
            case 0:
                return lifecycle.complete(200);
            case 1:
                return lifecycle.fail(503, 2_000);
            default:
                return lifecycle.cancel();
        }
    }

    private static int kind(final int what)
    {
        return what == 0 ? RequestLifecycle.COMPLETED : what == 1 ? RequestLifecycle.FAILED : RequestLifecycle.CANCELLED;
    }

    /** Every order of the three ending calls, each also repeated, as sequences of 3 to 6 calls. */
    private static int[][] permutations()
    {
        final List<int[]> out = new ArrayList<>();
        final int[][] base = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        for (final int[] p : base)
        {
            out.add(p);
            out.add(new int[] {p[0], p[0], p[1], p[1], p[2], p[2]});
        }
        return out.toArray(new int[0][]);
    }
}
