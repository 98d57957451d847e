package io.multifactor.sim.load;

import io.multifactor.serving.ServingHeaders;
import io.multifactor.serving.SseStreamMeter;
import io.multifactor.sim.prompt.PromptSchedule;
import io.multifactor.sim.prompt.PromptTurn;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Runs one open-loop load: requests leave at seeded Poisson arrival times whatever the responses do (a slow target does
 * not slow the arrivals down, so its queueing shows in the latencies), each request's time counted from its arrival
 * (connection waits included). A streamed response is read as server-sent events as they come, by the gateway's own
 * {@link SseStreamMeter} (so TPOT has one definition): TTFT is the time to the first chunk with non-empty content
 * ({@code choices[].delta.content}, or {@code text} for completions; role-only chunks and {@code [DONE]} do not
 * count), TPOT the time between the first and last content chunks divided by one less than their number (or than
 * {@code usage.completion_tokens} when the stream reports it). The run stops sending after {@code durationS} or {@code maxRequests}, waits up to
 * {@code drainS} for the rest, then cuts what is left (status 0). With the profile's {@code prompts}, the arrivals
 * are its sessions' turns ({@link PromptSchedule}), each request sending its turn's messages, and a session of more
 * than one turn its key in {@code x-session-id}.
 * <p>
 * Every request of a run lives on one Vert.x event loop; {@link #run} blocks the calling thread until the run is over.
 * This class is stateless and threadsafe (each run has its own Vert.x instance).
 */
public final class LoadGenerator
{
    /** The header that carries a session's key. */
    static final String SESSION_HEADER = ServingHeaders.SESSION_ID;

    /** Listener of the progress line, called on the run's event loop once per interval. */
    @FunctionalInterface
    public interface Progress extends Consumer<String>
    {
    }

    private LoadGenerator()
    {
    }

    /**
     * The arrival times of a profile, from its seed: exponential gaps at its rate, within its duration and count.
     *
     * @param profile the load.
     * @return arrival times in nanoseconds from the start of the run, ascending.
     */
    public static long[] arrivalsNs(final LoadProfile profile)
    {
        if (profile.prompts().active())
        {
            final List<PromptTurn> turns = turns(profile);
            final long[] out = new long[turns.size()];
            for (int i = 0; i < out.length; i++)
            {
                out[i] = turns.get(i).timeNs();
            }
            return out;
        }
        final SplittableRandom random = new SplittableRandom(profile.seed());
        final List<Long> times = new ArrayList<>();
        double t = 0.0;
        while (times.size() < profile.maxRequests())
        {
            t += -Math.log(1.0 - random.nextDouble()) / profile.arrivalsPerS();
            if (t >= profile.durationS())
            {
                break;
            }
            times.add((long)(t * 1e9));
        }
        final long[] out = new long[times.size()];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = times.get(i);
        }
        return out;
    }

    /**
     * The requests of a profile with prompts that share prefixes, in the order they are sent.
     *
     * @param profile the load; its prompts active.
     * @return its sessions' turns within its duration and count.
     */
    public static List<PromptTurn> turns(final LoadProfile profile)
    {
        final PromptSchedule schedule = new PromptSchedule(profile.prompts(), profile.arrivalsPerS(),
            profile.durationS(), profile.seed());
        final List<PromptTurn> turns = new ArrayList<>();
        for (PromptTurn turn = schedule.next(); turn != null && turns.size() < profile.maxRequests();
            turn = schedule.next())
        {
            turns.add(turn);
        }
        return turns;
    }

    /**
     * Runs the load and waits for its end.
     *
     * @param target base URL of the gateway or server, such as {@code http://127.0.0.1:8080} (its path, if any, is
     *     prefixed to {@code /v1/chat/completions}).
     * @param profile the load.
     * @param progressOrNull receives a progress line per interval, or null.
     * @return every request's result.
     * @throws IllegalArgumentException for a target that is not an http URL with a host.
     */
    public static LoadResults run(final String target, final LoadProfile profile, final Progress progressOrNull)
    {
        final URI uri = URI.create(target);
        if (!"http".equals(uri.getScheme()) || uri.getHost() == null)
        {
            throw new IllegalArgumentException("target must be an http URL such as http://127.0.0.1:8080, got " + target);
        }
        final String base = uri.getPath() == null ? "" : uri.getPath().replaceAll("/+$", "").replaceAll("/v1$", "");
        final String path = base + (profile.chat() ? "/v1/chat/completions" : "/v1/completions");
        final List<PromptTurn> turns = !profile.closedLoop() && profile.prompts().active() ? turns(profile) : null;
        final long[] arrivals = profile.closedLoop() ? new long[0] : arrivalsNs(profile);
        // The native epoll transport where it loads: a measuring instrument should take as little CPU as it can.
        final Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
        try
        {
            final HttpClientAgent client = vertx.createHttpClient(
                new HttpClientOptions().setKeepAlive(true).setMaxInitialLineLength(8192),
                new PoolOptions().setHttp1MaxSize(4096).setMaxWaitQueueSize(-1));
            final Run run = new Run(vertx, client, uri.getHost(), uri.getPort() < 0 ? 80 : uri.getPort(), path, profile,
                arrivals, turns, progressOrNull);
            final long boundS = (long)Math.ceil(profile.durationS() + profile.drainS()) + 30;
            try
            {
                return run.start().await(boundS, TimeUnit.SECONDS);
            }
            catch (final TimeoutException ex)
            {
                throw new IllegalStateException("the load run did not end within " + boundS + " s", ex);
            }
        }
        finally
        {
            vertx.close();
        }
    }

    /**
     * The request body of one turn of a profile with prompts: its messages (or its text for completions).
     *
     * @param profile the load.
     * @param turn the request's prompt.
     * @return the JSON body.
     */
    static String body(final LoadProfile profile, final PromptTurn turn)
    {
        final String model = profile.decision() != null ? profile.decision() :
            profile.model() != null ? profile.model() : "default";
        final StringBuilder json = new StringBuilder((int)Math.min(Integer.MAX_VALUE - 64, turn.promptTokens() * 4 + 256))
            .append("{\"model\":\"").append(model).append("\",\"stream\":").append(profile.stream())
            .append(",\"max_tokens\":").append(profile.maxTokens());
        if (profile.chat())
        {
            turn.appendMessages(json.append(",\"messages\":"));
        }
        else
        {
            turn.appendText(json.append(",\"prompt\":\"")).append('"');
        }
        return json.append('}').toString();
    }

    /** The request body of a profile: the same for every request. */
    static String body(final LoadProfile profile)
    {
        final StringBuilder prompt = new StringBuilder(profile.promptTokens() * 4);
        for (int i = 0; i < profile.promptTokens(); i++)
        {
            prompt.append("tok ");
        }
        final String model = profile.decision() != null ? profile.decision() :
            profile.model() != null ? profile.model() : "default";
        final String input = profile.chat() ?
            "\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]" : "\"prompt\":\"" + prompt + '"';
        return "{\"model\":\"" + model + "\",\"stream\":" + profile.stream() + ",\"max_tokens\":" + profile.maxTokens() +
            ',' + input + '}';
    }

    /** One run's state, on its event loop. */
    private static final class Run
    {
        private final Vertx vertx;
        private final HttpClientAgent client;
        private final String host;
        private final int port;
        private final String path;
        private final LoadProfile profile;
        private final long[] arrivals;
        private final List<PromptTurn> turnsOrNull;
        private final Progress progress;
        private final Buffer body;
        private final LoadResults results;
        /** Closed loop: requests are sent as others end, up to {@link #limit}, within the profile's duration. */
        private final boolean closed;
        private final int limit;
        private final List<Flight> open = new ArrayList<>();
        private final Promise<LoadResults> done = Promise.promise();
        private long startNs;
        private int next;
        private int finished;
        private int errors;
        private boolean cut;
        private long progressTimer = -1;

        Run(final Vertx vertx, final HttpClientAgent client, final String host, final int port, final String path,
            final LoadProfile profile, final long[] arrivals, final List<PromptTurn> turnsOrNull,
            final Progress progress)
        {
            this.turnsOrNull = turnsOrNull;
            this.vertx = vertx;
            this.client = client;
            this.host = host;
            this.port = port;
            this.path = path;
            this.profile = profile;
            this.arrivals = arrivals;
            this.progress = progress;
            this.body = Buffer.buffer(body(profile));
            this.closed = profile.closedLoop();
            this.limit = closed ? profile.maxRequests() : arrivals.length;
            this.results = new LoadResults(limit);
        }

        io.vertx.core.Future<LoadResults> start()
        {
            final Context context = vertx.getOrCreateContext();
            context.runOnContext(ignored ->
            {
                startNs = System.nanoTime();
                if (closed)
                {
                    startClosedLoop();
                    return;
                }
                if (arrivals.length == 0)
                {
                    end();
                    return;
                }
                final long intervalMs = Math.max(1L, (long)(profile.intervalS() * 1000.0));
                if (progress != null)
                {
                    progressTimer = vertx.setPeriodic(intervalMs, id -> progress.accept(line()));
                }
                final long lastNs = arrivals[arrivals.length - 1];
                vertx.setTimer(Math.max(1L, (lastNs + (long)(profile.drainS() * 1e9)) / 1_000_000L), id -> cutRest());
                tick();
            });
            return done.future();
        }

        private void startClosedLoop()
        {
            if (progress != null)
            {
                progressTimer = vertx.setPeriodic(Math.max(1L, (long)(profile.intervalS() * 1000.0)),
                    id -> progress.accept(line()));
            }
            vertx.setTimer(Math.max(1L, (long)((profile.durationS() + profile.drainS()) * 1000.0)), id -> cutRest());
            for (int i = 0; i < profile.concurrency(); i++)
            {
                sendNextClosed();
            }
            if (next == 0)
            {
                end();
            }
        }

        /** Closed loop: sends the next request, unless the count or the duration is reached. */
        private void sendNextClosed()
        {
            final long now = System.nanoTime() - startNs;
            if (!cut && next < limit && now < (long)(profile.durationS() * 1e9))
            {
                send(results.add(now, profile.promptTokens()));
                next++;
            }
        }

        private String line()
        {
            return String.format(java.util.Locale.ROOT, "load: %5.1fs sent %d/%d done %d in flight %d errors %d",
                (System.nanoTime() - startNs) / 1e9, next, limit, finished, next - finished, errors);
        }

        private void tick()
        {
            final long now = System.nanoTime() - startNs;
            while (next < arrivals.length && arrivals[next] <= now)
            {
                send(results.add(arrivals[next], turnsOrNull == null ? profile.promptTokens() :
                    turnsOrNull.get(next).promptTokens()));
                next++;
            }
            if (next < arrivals.length)
            {
                final long waitMs = Math.max(1L, (arrivals[next] - (System.nanoTime() - startNs)) / 1_000_000L);
                vertx.setTimer(waitMs, id -> tick());
            }
        }

        private void send(final int index)
        {
            final Flight flight = new Flight(index, System.nanoTime());
            open.add(flight);
            final RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(host).setPort(port)
                .setURI(path).putHeader("content-type", "application/json");
            if (profile.decision() != null)
            {
                options.putHeader(ServingHeaders.DECISION, profile.decision());
            }
            final PromptTurn turn = turnsOrNull == null ? null : turnsOrNull.get(index);
            if (turn != null && profile.prompts().turns() > 1)
            {
                options.putHeader(SESSION_HEADER, Long.toHexString(turn.sessionId()));
            }
            final Buffer requestBody = turn == null ? body : Buffer.buffer(body(profile, turn));
            client.request(options).onComplete(created ->
            {
                if (created.failed())
                {
                    flight.fail();
                    return;
                }
                final HttpClientRequest request = created.result();
                flight.request = request;
                if (flight.over)
                {
                    request.reset();
                    return;
                }
                request.exceptionHandler(ex -> flight.fail());
                request.send(requestBody).onComplete(sent ->
                {
                    if (sent.failed())
                    {
                        flight.fail();
                        return;
                    }
                    flight.onResponse(sent.result());
                });
            });
        }

        private void cutRest()
        {
            cut = true;
            for (final Flight flight : new ArrayList<>(open))
            {
                if (flight.request != null)
                {
                    flight.request.reset();
                }
                flight.fail();
            }
        }

        private void onFinished(final Flight flight)
        {
            open.remove(flight);
            finished++;
            if (!results.ok(flight.index))
            {
                errors++;
            }
            if (closed)
            {
                sendNextClosed();
                if (open.isEmpty())
                {
                    end();
                }
                return;
            }
            if (finished == arrivals.length || cut && open.isEmpty() && next == arrivals.length)
            {
                end();
            }
        }

        private void end()
        {
            if (done.future().isComplete())
            {
                return;
            }
            if (progressTimer >= 0)
            {
                vertx.cancelTimer(progressTimer);
                progressTimer = -1;
                progress.accept(line());
            }
            results.elapsedS((System.nanoTime() - startNs) / 1e9);
            done.tryComplete(results);
        }

        /** One request in flight. */
        private final class Flight
        {
            final int index;
            final long sentNs;
            final StringBuilder pending = new StringBuilder();
            final SseStreamMeter meter = new SseStreamMeter();
            HttpClientRequest request;
            int status;
            String model;
            boolean over;

            Flight(final int index, final long sentNs)
            {
                this.index = index;
                this.sentNs = sentNs;
            }

            void onResponse(final HttpClientResponse response)
            {
                status = response.statusCode();
                model = response.getHeader(ServingHeaders.SELECTED_MODEL);
                response.exceptionHandler(ex -> fail());
                final boolean events = status == 200 && profile.stream();
                response.handler(buffer ->
                {
                    if (events)
                    {
                        onEvents(buffer);
                    }
                    else if (status == 200 && pending.length() < 1 << 20)
                    {
                        pending.append(buffer.toString());
                    }
                });
                response.endHandler(ignored ->
                {
                    if (events)
                    {
                        onEvents(Buffer.buffer("\n"));
                        finish(meter.done());
                    }
                    else
                    {
                        if (status == 200 && model == null)
                        {
                            model = field(pending, 0, "\"model\":\"");
                        }
                        finish(status == 200);
                    }
                });
            }

            private void onEvents(final Buffer buffer)
            {
                final long now = System.nanoTime();
                final byte[] bytes = buffer.getBytes();
                meter.onBytes(bytes, 0, bytes.length, now);
                if (model != null)
                {
                    return;
                }
                // The model's name, when no header said it: from the first data line that has one.
                pending.append(buffer.toString());
                int from = 0;
                int newline;
                while ((newline = pending.indexOf("\n", from)) >= 0)
                {
                    onLine(from);
                    from = newline + 1;
                }
                pending.delete(0, from);
            }

            private void onLine(final int from)
            {
                if (model == null && startsWith(pending, "data:", from))
                {
                    model = field(pending, from + 5, "\"model\":\"");
                }
            }

            void fail()
            {
                if (over)
                {
                    return;
                }
                over = true;
                results.finish(index, status, model, -1L, -1L, (int)meter.contentChunks(), false);
                onFinished(this);
            }

            private void finish(final boolean complete)
            {
                if (over)
                {
                    return;
                }
                over = true;
                final long firstNs = meter.firstContentNs();
                final long ttft = firstNs == SseStreamMeter.NONE ? -1L : (firstNs - sentNs) / 1000L;
                final long tpotNs = meter.tpotNs();
                final long tpot = tpotNs < 0 ? -1L : tpotNs / 1000L;
                results.finish(index, status, model, ttft, tpot, (int)meter.contentChunks(), complete);
                onFinished(this);
            }
        }
    }

    private static boolean startsWith(final StringBuilder text, final String prefix, final int from)
    {
        if (from + prefix.length() > text.length())
        {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++)
        {
            if (text.charAt(from + i) != prefix.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    private static String field(final CharSequence text, final int from, final String key)
    {
        final String s = text.toString();
        final int at = s.indexOf(key, from);
        if (at < 0)
        {
            return null;
        }
        final int end = s.indexOf('"', at + key.length());
        return end < 0 ? null : s.substring(at + key.length(), end);
    }
}
