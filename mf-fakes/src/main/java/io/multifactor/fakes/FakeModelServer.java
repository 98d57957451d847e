package io.multifactor.fakes;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One fake model server: a real HTTP server on loopback that answers {@code POST /v1/chat/completions} and
 * {@code POST /v1/completions} as an OpenAI-compatible server does (streamed as server-sent events, or whole), with the
 * behaviour of its {@link FakeModelProfile}, and {@code GET /metrics} in vLLM's Prometheus format with its real queue:
 * <pre>
 *   vllm:num_requests_running{model_name="M"} 3.0
 *   vllm:num_requests_waiting{model_name="M"} 0.0
 *   vllm:kv_cache_usage_perc{model_name="M"} 0.1875
 * </pre>
 * With a {@link PrefixCaching} in its profile it keeps its own LRU of prompt blocks ({@link PromptBlockCache}): when a
 * request starts running its blocks are looked up and cached, and its first token comes after its drawn TTFT plus its
 * uncached prompt tokens / the prefill rate (so TTFT = queue wait + uncached tokens / prefill rate + base); the KV-cache
 * use is then the blocks of the running requests' prompts and outputs over the cache's blocks, and {@code /metrics}
 * adds vLLM's counters (in tokens) and cache configuration:
 * <pre>
 *   vllm:prefix_cache_queries_total{model_name="M"} 4096.0
 *   vllm:prefix_cache_hits_total{model_name="M"} 3072.0
 *   vllm:cache_config_info{block_size="16",enable_prefix_caching="True",num_gpu_blocks="8192"} 1.0
 * </pre>
 * A streamed response sends a role-only chunk when the request starts running, its content chunks
 * ({@code choices[0].delta.content}, or {@code choices[0].text} for completions) after its TTFT and then one per TPOT,
 * a chunk with {@code finish_reason}, a usage chunk when the request asked for it ({@code stream_options.include_usage}),
 * and {@code data: [DONE]}. A client that goes away frees its place at once (waiting or running). {@code POST
 * /v1/responses} is served the same way in the Responses API's format and {@code POST /v1/embeddings} answers at once
 * (after the same rate-limit and error draws), both written by {@link ResponsesFormat}.
 * <p>
 * Draws come from one generator seeded at construction, in arrival order: for the same seed and the same arrivals, the
 * same latencies, errors and 429s.
 * <p>
 * Threading: every request, timer and queue change runs on the server's own event loop (one Vert.x context), so the
 * queue needs no lock; the counters read by other threads are atomic or volatile. {@link #start} and {@link #close} are
 * threadsafe.
 */
public final class FakeModelServer
{
    /** Largest request body read, in bytes; a larger one is answered 413. */
    public static final int MAX_BODY_BYTES = 8 << 20;

    private static final String RESPONSES = "/v1/responses";
    private static final String EMBEDDINGS = "/v1/embeddings";
    private static final String[] WORDS = { "the ", "model ", "says ", "hello ", "and ", "streams ", "tokens ", "here " };

    private final Vertx vertx;
    private final FakeModelProfile profile;
    private final SplittableRandom random;
    private final ArrayDeque<Job> waiting = new ArrayDeque<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong rateLimited = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private volatile int running;
    private volatile int waitingCount;
    private volatile long runningBlocks;
    private final PromptBlockCache cacheOrNull;
    private volatile int port = -1;
    private long startNs;
    private long nextId;
    private Context context;
    private HttpServer server;

    /**
     * @param vertx the Vert.x instance to run on.
     * @param profile how the server behaves.
     * @param seed seed of its draws.
     */
    public FakeModelServer(final Vertx vertx, final FakeModelProfile profile, final long seed)
    {
        this.vertx = vertx;
        this.profile = profile;
        this.random = new SplittableRandom(seed);
        this.cacheOrNull = profile.prefixCachingOrNull() == null ? null : new PromptBlockCache(profile.prefixCachingOrNull());
    }

    /**
     * Starts listening on {@code 127.0.0.1} at the profile's port (0: any free one); the clock of its windows starts
     * now.
     *
     * @return completes with the port once the server listens, or fails (port taken, ...).
     */
    public Future<Integer> start()
    {
        final Promise<Integer> bound = Promise.promise();
        context = vertx.getOrCreateContext();
        context.runOnContext(ignored ->
        {
            startNs = System.nanoTime();
            server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(profile.port()));
            server.requestHandler(this::onRequest).listen().onComplete(result ->
            {
                if (result.succeeded())
                {
                    port = result.result().actualPort();
                    bound.complete(port);
                }
                else
                {
                    bound.fail(result.cause());
                }
            });
        });
        return bound.future();
    }

    /** @return completes once the server stopped listening and every connection is closed. */
    public Future<Void> close()
    {
        return server == null ? Future.succeededFuture() : server.close();
    }

    /** @return the profile. */
    public FakeModelProfile profile()
    {
        return profile;
    }

    /** @return the port it listens on, -1 before it does. */
    public int port()
    {
        return port;
    }

    /** @return requests currently running (decoding). */
    public int running()
    {
        return running;
    }

    /** @return requests currently waiting for a place in the batch. */
    public int waiting()
    {
        return waitingCount;
    }

    /** @return completion requests received (every outcome). */
    public long requests()
    {
        return requests.get();
    }

    /** @return responses completed normally. */
    public long completed()
    {
        return completed.get();
    }

    /** @return requests answered 429. */
    public long rateLimited()
    {
        return rateLimited.get();
    }

    /** @return requests answered 500 by the error rate or in a failing window. */
    public long failed()
    {
        return failed.get();
    }

    /** @return prompt tokens looked up in the prefix cache so far (0 without one). */
    public long prefixQueriedTokens()
    {
        return cacheOrNull == null ? 0L : cacheOrNull.queriedTokens();
    }

    /** @return prompt tokens found in the prefix cache so far (0 without one). */
    public long prefixHitTokens()
    {
        return cacheOrNull == null ? 0L : cacheOrNull.hitTokens();
    }

    /** @return requests whose client went away before the end. */
    public long cancelled()
    {
        return cancelled.get();
    }

    private double elapsedS()
    {
        return (System.nanoTime() - startNs) / 1e9;
    }

    private void onRequest(final HttpServerRequest request)
    {
        final String path = request.path();
        if (request.method() == HttpMethod.GET && "/metrics".equals(path))
        {
            request.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(metrics());
            return;
        }
        if (request.method() == HttpMethod.GET && ("/health".equals(path) || "/v1/models".equals(path)))
        {
            request.response().putHeader("content-type", "application/json")
                .end("/health".equals(path) ? "{}" : "{\"object\":\"list\",\"data\":[{\"id\":\"" + profile.name() +
                    "\",\"object\":\"model\"}]}");
            return;
        }
        final boolean chat = "/v1/chat/completions".equals(path);
        if (request.method() != HttpMethod.POST || !chat && !"/v1/completions".equals(path) &&
            !RESPONSES.equals(path) && !EMBEDDINGS.equals(path))
        {
            error(request.response(), 404, "not_found", "no route " + request.method() + ' ' + path);
            return;
        }
        final Buffer body = Buffer.buffer();
        request.handler(chunk ->
        {
            if (body.length() + chunk.length() > MAX_BODY_BYTES)
            {
                if (!request.response().ended())
                {
                    error(request.response(), 413, "invalid_request_error", "body over " + MAX_BODY_BYTES + " bytes");
                }
                return;
            }
            body.appendBuffer(chunk);
        });
        request.endHandler(ignored ->
        {
            if (!request.response().ended())
            {
                onCompletion(request, chat, body);
            }
        });
    }

    private void onCompletion(final HttpServerRequest request, final boolean chat, final Buffer body)
    {
        final JsonObject json;
        try
        {
            json = new JsonObject(body);
        }
        catch (final DecodeException | ClassCastException ex)
        {
            error(request.response(), 400, "invalid_request_error", "body is not a JSON object");
            return;
        }
        requests.incrementAndGet();
        // Four draws per request whatever happens, so that one outcome does not shift the others' draws.
        final double limitDraw = random.nextDouble();
        final double errorDraw = random.nextDouble();
        final double ttftMs = lognormal(profile.ttftMs(), random.nextDouble(), random.nextDouble());
        final double tpotMs = lognormal(profile.tpotMs(), random.nextDouble(), random.nextDouble());
        final double now = elapsedS();
        for (final TimeWindow window : profile.rateLimited())
        {
            if (window.covers(now) && limitDraw < window.share())
            {
                rateLimited.incrementAndGet();
                request.response().putHeader("retry-after", Long.toString(window.retryAfterS()));
                error(request.response(), 429, "rate_limit_error", "rate limited, retry after " + window.retryAfterS() +
                    " s");
                return;
            }
        }
        if (errorDraw < profile.errorRate() || failingAt(now))
        {
            failed.incrementAndGet();
            error(request.response(), 500, "server_error", "injected error");
            return;
        }
        if (EMBEDDINGS.equals(request.path()))
        {
            completed.incrementAndGet();
            request.response().putHeader("content-type", "application/json")
                .end(ResponsesFormat.embeddings(json, profile.name()));
            return;
        }
        final Job job = new Job(request.response(), chat, json, ttftMs, tpotMs);
        job.responses = RESPONSES.equals(request.path());
        request.response().closeHandler(ignored -> onClientGone(job));
        if (running < profile.batch())
        {
            run(job);
        }
        else
        {
            waiting.addLast(job);
            waitingCount = waiting.size();
        }
    }

    private boolean failingAt(final double elapsedS)
    {
        for (final TimeWindow window : profile.failing())
        {
            if (window.covers(elapsedS))
            {
                return true;
            }
        }
        return false;
    }

    private double lognormal(final double mean, final double u1, final double u2)
    {
        final double sigma = profile.sigma();
        if (sigma == 0.0)
        {
            return mean;
        }
        // Box-Muller from two uniforms; mu such that the mean is the configured one.
        final double z = Math.sqrt(-2.0 * Math.log(1.0 - u1)) * Math.cos(2.0 * Math.PI * u2);
        return mean * Math.exp(sigma * z - 0.5 * sigma * sigma);
    }

    private double ttftFactor(final double elapsedS)
    {
        double factor = 1.0;
        for (final TimeWindow window : profile.degraded())
        {
            factor *= window.covers(elapsedS) ? window.ttftFactor() : 1.0;
        }
        return factor;
    }

    private double tpotFactor(final double elapsedS)
    {
        double factor = 1.0;
        for (final TimeWindow window : profile.degraded())
        {
            factor *= window.covers(elapsedS) ? window.tpotFactor() : 1.0;
        }
        return factor;
    }

    private void run(final Job job)
    {
        running++;
        job.state = Job.RUNNING;
        final HttpServerResponse response = job.response;
        if (job.stream)
        {
            response.setChunked(true).putHeader("content-type", "text/event-stream").putHeader("cache-control", "no-cache");
            response.write(chunk(job, null, false));
        }
        double prefillMs = 0.0;
        if (cacheOrNull != null)
        {
            final PrefixCaching caching = profile.prefixCachingOrNull();
            final long hit = cacheOrNull.admit(job.blockHashes, job.prefillTokens);
            prefillMs = (job.prefillTokens - hit) * 1000.0 / caching.prefillTokensPerS();
            job.blocks = (job.prefillTokens + job.tokens + caching.blockTokens() - 1) / caching.blockTokens();
            runningBlocks += job.blocks;
        }
        job.dueNs = System.nanoTime() + (long)((job.ttftMs * ttftFactor(elapsedS()) + prefillMs) * 1e6);
        schedule(job);
    }

    private void schedule(final Job job)
    {
        final long delayMs = Math.max(1L, Math.round((job.dueNs - System.nanoTime()) / 1e6));
        job.timer = vertx.setTimer(delayMs, ignored -> onTick(job));
    }

    private void onTick(final Job job)
    {
        if (job.state != Job.RUNNING)
        {
            return;
        }
        if (job.stream)
        {
            job.response.write(chunk(job, WORDS[job.sent % WORDS.length], false));
        }
        job.sent++;
        if (job.sent >= job.tokens)
        {
            finish(job);
            return;
        }
        job.dueNs += (long)(job.tpotMs * tpotFactor(elapsedS()) * 1e6);
        schedule(job);
    }

    private void finish(final Job job)
    {
        job.state = Job.DONE;
        // Counted before the last bytes leave: a client that has read the whole response sees it counted.
        completed.incrementAndGet();
        final HttpServerResponse response = job.response;
        if (job.responses)
        {
            final String text = wholeText(job);
            if (!job.stream)
            {
                response.putHeader("content-type", "application/json");
            }
            response.end(job.stream ? ResponsesFormat.completed(job.id, profile.name(), job.created, text,
                job.promptTokens, job.tokens, job.sent + 1) :
                ResponsesFormat.whole(job.id, profile.name(), job.created, text, job.promptTokens, job.tokens));
        }
        else if (job.stream)
        {
            response.write(chunk(job, null, true));
            if (job.includeUsage)
            {
                response.write("data: {\"id\":\"" + job.id + "\",\"object\":\"" + job.object() + "\",\"model\":\"" +
                    profile.name() + "\",\"choices\":[],\"usage\":" + usage(job) + "}\n\n");
            }
            response.end("data: [DONE]\n\n");
        }
        else
        {
            final StringBuilder text = new StringBuilder();
            for (int i = 0; i < job.tokens; i++)
            {
                text.append(WORDS[i % WORDS.length]);
            }
            final String choice = job.chat ?
                "{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + text + "\"},\"finish_reason\":\"stop\"}" :
                "{\"index\":0,\"text\":\"" + text + "\",\"finish_reason\":\"stop\"}";
            response.putHeader("content-type", "application/json").end("{\"id\":\"" + job.id + "\",\"object\":\"" +
                (job.chat ? "chat.completion" : "text_completion") + "\",\"created\":" + job.created + ",\"model\":\"" +
                profile.name() + "\",\"choices\":[" + choice + "],\"usage\":" + usage(job) + '}');
        }
        release(job);
    }

    private void onClientGone(final Job job)
    {
        if (job.state == Job.WAITING)
        {
            waiting.remove(job);
            waitingCount = waiting.size();
        }
        else if (job.state == Job.RUNNING)
        {
            vertx.cancelTimer(job.timer);
            release(job);
        }
        else
        {
            return;
        }
        job.state = Job.DONE;
        cancelled.incrementAndGet();
    }

    private void release(final Job job)
    {
        running--;
        runningBlocks -= job.blocks;
        final Job next = waiting.pollFirst();
        waitingCount = waiting.size();
        if (next != null)
        {
            run(next);
        }
    }

    private static String wholeText(final Job job)
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < job.tokens; i++)
        {
            text.append(WORDS[i % WORDS.length]);
        }
        return text.toString();
    }

    private String chunk(final Job job, final String content, final boolean last)
    {
        if (job.responses)
        {
            return content == null ? ResponsesFormat.created(job.id, profile.name(), job.created) :
                ResponsesFormat.delta(job.id, content, job.sent + 1);
        }
        final String delta;
        if (job.chat)
        {
            delta = last ? "\"delta\":{}" : content == null ? "\"delta\":{\"role\":\"assistant\",\"content\":\"\"}" :
                "\"delta\":{\"content\":\"" + content + "\"}";
        }
        else
        {
            delta = "\"text\":\"" + (content == null ? "" : content) + '"';
        }
        return "data: {\"id\":\"" + job.id + "\",\"object\":\"" + job.object() + "\",\"created\":" + job.created +
            ",\"model\":\"" + profile.name() + "\",\"choices\":[{\"index\":0," + delta + ",\"finish_reason\":" +
            (last ? "\"stop\"" : "null") + "}]}\n\n";
    }

    private String usage(final Job job)
    {
        return "{\"prompt_tokens\":" + job.promptTokens + ",\"completion_tokens\":" + job.tokens + ",\"total_tokens\":" +
            (job.promptTokens + job.tokens) + '}';
    }

    private String metrics()
    {
        final String label = "{model_name=\"" + profile.name() + "\"}";
        final int runningNow = running;
        return "# HELP vllm:num_requests_running Number of requests in model execution batches.\n" +
            "# TYPE vllm:num_requests_running gauge\n" +
            "vllm:num_requests_running" + label + ' ' + (double)runningNow + '\n' +
            "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n" +
            "# TYPE vllm:num_requests_waiting gauge\n" +
            "vllm:num_requests_waiting" + label + ' ' + (double)waitingCount + '\n' +
            "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n" +
            "# TYPE vllm:kv_cache_usage_perc gauge\n" +
            "vllm:kv_cache_usage_perc" + label + ' ' + kvCacheUse(runningNow) + '\n' + prefixMetrics(label);
    }

    private double kvCacheUse(final int runningNow)
    {
        return cacheOrNull == null ? Math.min(1.0, runningNow * profile.kvPerRequest()) :
            Math.min(1.0, (double)runningBlocks / profile.prefixCachingOrNull().gpuBlocks());
    }

    private String prefixMetrics(final String label)
    {
        if (cacheOrNull == null)
        {
            return "";
        }
        final PrefixCaching caching = profile.prefixCachingOrNull();
        return "# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.\n" +
            "# TYPE vllm:prefix_cache_queries_total counter\n" +
            "vllm:prefix_cache_queries_total" + label + ' ' + (double)cacheOrNull.queriedTokens() + '\n' +
            "# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.\n" +
            "# TYPE vllm:prefix_cache_hits_total counter\n" +
            "vllm:prefix_cache_hits_total" + label + ' ' + (double)cacheOrNull.hitTokens() + '\n' +
            "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n" +
            "# TYPE vllm:cache_config_info gauge\n" +
            "vllm:cache_config_info{block_size=\"" + caching.blockTokens() +
            "\",enable_prefix_caching=\"True\",num_gpu_blocks=\"" + caching.gpuBlocks() + "\"} 1.0\n";
    }

    private static void error(final HttpServerResponse response, final int status, final String type, final String message)
    {
        response.setStatusCode(status).putHeader("content-type", "application/json")
            .end("{\"error\":{\"message\":\"" + message + "\",\"type\":\"" + type + "\",\"code\":" + status + "}}");
    }

    /** One request being served; touched only on the server's event loop. */
    private final class Job
    {
        static final int WAITING = 0;
        static final int RUNNING = 1;
        static final int DONE = 2;

        final HttpServerResponse response;
        final boolean chat;
        final boolean stream;
        final boolean includeUsage;
        final int tokens;
        final long promptTokens;
        final double ttftMs;
        final double tpotMs;
        final String id;
        final long created = System.currentTimeMillis() / 1000L;
        int state = WAITING;
        /** Whether the request came to {@code /v1/responses} (then {@link ResponsesFormat} writes the answer). */
        boolean responses;
        int sent;
        long blocks;
        long dueNs;
        final long prefillTokens;
        final long[] blockHashes;
        long timer;

        Job(final HttpServerResponse response, final boolean chat, final JsonObject json, final double ttftMs,
            final double tpotMs)
        {
            this.response = response;
            this.chat = chat;
            this.stream = Boolean.TRUE.equals(json.getValue("stream"));
            final Object options = json.getValue("stream_options");
            this.includeUsage = options instanceof JsonObject &&
                Boolean.TRUE.equals(((JsonObject)options).getValue("include_usage"));
            final Object max = json.getValue(json.containsKey("max_completion_tokens") ? "max_completion_tokens" :
                "max_tokens");
            final int cap = max instanceof Number && ((Number)max).longValue() >= 1 ?
                (int)Math.min(Integer.MAX_VALUE, ((Number)max).longValue()) : Integer.MAX_VALUE;
            this.tokens = Math.min(profile.outputTokens(), cap);
            this.promptTokens = json.toBuffer().length() / 4;
            if (cacheOrNull == null)
            {
                this.prefillTokens = 0L;
                this.blockHashes = null;
            }
            else
            {
                final byte[] prompt = PromptBlockCache.promptBytes(chat, json);
                this.prefillTokens = (prompt.length + PrefixCaching.BYTES_PER_TOKEN - 1) / PrefixCaching.BYTES_PER_TOKEN;
                this.blockHashes = cacheOrNull.blockHashes(prompt);
            }
            this.ttftMs = ttftMs;
            this.tpotMs = tpotMs;
            this.id = "fake-" + profile.name() + '-' + nextId++;
        }

        String object()
        {
            return chat ? "chat.completion.chunk" : "text_completion";
        }
    }
}
