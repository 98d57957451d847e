package io.multifactor.serving;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.scoring.RequestScreen;
import io.multifactor.servers.OrcaLoadReportParser;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One attempt of one request, from the selection to the end of its lease: {@link #start} selects and takes the lease,
 * the server reports {@link #onRequestSent}, {@link #onResponseStatus} and the response's bytes
 * ({@link #onResponseBytes}), and one of {@link #complete}, {@link #fail} or {@link #cancel} ends it. The lease ends
 * <b>exactly once</b>, in one place ({@link #end}), whatever the order or number of those calls and whichever threads
 * make them: the first wins, later ones return {@code false} and change nothing.
 * <p>
 * Measures, for a streamed response with a 2xx status: TTFT from the request sent to the first content chunk (recorded
 * when that chunk arrives), TPOT from the first to the last content chunk, per chunk or per {@code usage}
 * completion token (recorded on {@link #complete} only). A non-streamed response records neither.
 * <p>
 * Reusable: {@link #start} again once the previous attempt has ended and no callback of it can arrive any more.
 * This class is not threadsafe except for the three ending methods, which may race from any threads; the other
 * methods are called by the one thread that owns the request.
 */
public final class RequestLifecycle
{
    /** {@link #start}: a model was chosen (its lease taken, unless the lease table was full). */
    public static final int STARTED = 0;
    /** {@link #start}: the decision chose nothing (outcome {@code failed}): nothing to end. */
    public static final int NO_MODEL = 1;
    /** {@link #start}: the decision handle is not in the current plans. */
    public static final int UNKNOWN_DECISION = 2;
    /** {@link #startDirect}: the model named cannot serve the request (its context window or capabilities). */
    public static final int INELIGIBLE = 3;

    /** {@link #endKind()}: not ended yet. */
    public static final int OPEN = 0;
    /** {@link #endKind()}: the response completed. */
    public static final int COMPLETED = 1;
    /** {@link #endKind()}: the backend failed (an error status, a connect failure, a reset or a timeout). */
    public static final int FAILED = 2;
    /** {@link #endKind()}: the client went away. */
    public static final int CANCELLED = 3;

    private static final int IDLE = -1;

    private static final String EVENT_STREAM = "text/event-stream";
    private static final String JSON = "application/json";

    private static final ThreadLocal<OrcaLoadReportParser> LOAD_REPORTS =
        ThreadLocal.withInitial(OrcaLoadReportParser::new);

    private final MultiFactorEngine engine;
    private final Request request = new Request();
    private boolean hasSession;
    private long sessionKey;
    private BackendChooser prefixChooser;
    private PromptBlocks prefixPrompt;
    private final Selection selection = new Selection();
    private final SseStreamMeter meter = new SseStreamMeter();
    private final PrefixTicket prefix = new PrefixTicket();
    private final AtomicInteger endKind = new AtomicInteger(IDLE);
    private long lease = InflightTracker.NO_LEASE;
    private int modelId = Handles.NONE;
    private long sentNs;
    private int responseStatus;
    private boolean streamed;
    private volatile int endStatus;
    private volatile long retryAfterMs;
    private long ttftMicros = -1;
    private long tpotMicros = -1;

    // What the request carries for eligibility and admission, applied by start to every attempt.
    private int needs;
    private double maxTtftMs;
    private double maxTpotMs;
    private int priority = Priority.STANDARD;

    /** @param engine the engine that selects and keeps the leases. */
    public RequestLifecycle(final MultiFactorEngine engine)
    {
        this.engine = engine;
    }

    /**
     * Sets the session key the next {@link #start}s select with (each attempt is a selection of the session).
     *
     * @param has whether the request carries a session key.
     * @param key the key ({@link SessionKeys}).
     */
    public void session(final boolean has, final long key)
    {
        hasSession = has;
        sessionKey = key;
    }

    /**
     * @param chooserOrNull the backend choice whose {@link BackendChooser#shareFor} gives each candidate's P(m) for the
     *     {@code prefix} factor, or {@code null} to supply none.
     * @param promptOrNull the request's captured prompt, or {@code null}.
     */
    public void prefix(final BackendChooser chooserOrNull, final PromptBlocks promptOrNull)
    {
        prefixChooser = chooserOrNull;
        prefixPrompt = promptOrNull;
    }

    /**
     * Selects a model for the request and takes its lease.
     *
     * @param decisionId the decision's handle.
     * @param exclusionsOrNull models this attempt leaves out (a retry leaves out the model that failed), or null.
     * @param promptTokens the prompt token estimate, or {@link Request#NO_TOKENS}.
     * @param maxOutputTokens the request's output token bound, or {@link Request#NO_TOKENS} (then the request carries no
     *     token counts).
     * @return {@link #STARTED}, {@link #NO_MODEL} or {@link #UNKNOWN_DECISION}.
     * @throws IllegalStateException when the previous attempt has not ended.
     */
    public int start(final int decisionId, final Exclusions exclusionsOrNull, final long promptTokens,
        final long maxOutputTokens)
    {
        if (endKind.get() == OPEN)
        {
            throw new IllegalStateException("the previous attempt has not ended");
        }
        clearAttempt();
        request.clear();
        request.decision(decisionId);
        if (hasSession)
        {
            request.session(sessionKey);
        }
        if (exclusionsOrNull != null && !exclusionsOrNull.isEmpty())
        {
            final int capacity = engine.plans().modelCapacity();
            for (int id = 0; id < capacity; id++)
            {
                if (exclusionsOrNull.contains(id))
                {
                    request.exclude(id);
                }
            }
        }
        if (maxOutputTokens != Request.NO_TOKENS)
        {
            request.maxOutputTokens(maxOutputTokens);
            if (promptTokens != Request.NO_TOKENS)
            {
                request.promptTokens(promptTokens);
            }
        }
        else if (promptTokens != Request.NO_TOKENS)
        {
            request.contextPromptTokens(promptTokens);
        }
        request.needs(needs).maxTtftMs(maxTtftMs).maxTpotMs(maxTpotMs).priority(priority);
        final DecisionPlan plan = engine.plans().decision(decisionId);
        if (plan == null)
        {
            endKind.set(IDLE);
            return UNKNOWN_DECISION;
        }
        if (prefixChooser != null && prefixPrompt != null)
        {
            // P(m): the share held where each candidate's request would go now (NaN: no prefix_affinity, missing).
            prefixChooser.prefixMatches(plan, prefixPrompt, request);
        }
        final long taken = engine.selectAndBegin(request, selection);
        if (selection.outcome() == Outcome.FAILED || !selection.hasSelection())
        {
            endKind.set(IDLE);
            return NO_MODEL;
        }
        lease = taken;
        modelId = selection.selectedModel();
        prefix.session(request.hasSession(), request.sessionKey());
        // Published last: an ending call on another thread that sees OPEN sees the lease too.
        endKind.set(OPEN);
        return STARTED;
    }

    /**
     * Takes the lease of a model named directly, without a selection ({@link MultiFactorEngine#begin(int, long)}:
     * weighted by the request's tokens when it carries token counts). The caller checked the model's ejection; a lease
     * begun on a half-open model is its probe.
     *
     * @param modelId the model's handle.
     * @param promptTokens the prompt token estimate, or {@link Request#NO_TOKENS}.
     * @param maxOutputTokens the request's output token bound, or {@link Request#NO_TOKENS}.
     * @return {@link #STARTED}, {@link #UNKNOWN_DECISION} when the model is not in the current plans, or
     *     {@link #INELIGIBLE} when it cannot serve the request (nothing taken).
     * @throws IllegalStateException when the previous attempt has not ended.
     */
    public int startDirect(final int modelId, final long promptTokens, final long maxOutputTokens)
    {
        if (endKind.get() == OPEN)
        {
            throw new IllegalStateException("the previous attempt has not ended");
        }
        clearAttempt();
        request.clear();
        final Plans plans = engine.plans();
        if (!plans.hasModel(modelId))
        {
            endKind.set(IDLE);
            return UNKNOWN_DECISION;
        }
        // Eligibility as a selection checks it: the request's tokens against the context window, its needs against
        // the capabilities; nothing is sent and no lease is taken when the model cannot serve it.
        if (maxOutputTokens != Request.NO_TOKENS)
        {
            request.maxOutputTokens(maxOutputTokens);
        }
        if (promptTokens != Request.NO_TOKENS)
        {
            request.contextPromptTokens(promptTokens);
        }
        request.needs(needs);
        if (RequestScreen.ineligibility(plans.modelContextWindow(modelId), plans.modelCapabilities(modelId),
            plans.defaultOutputTokens(), request) != DropReason.NONE)
        {
            endKind.set(IDLE);
            return INELIGIBLE;
        }
        lease = maxOutputTokens == Request.NO_TOKENS ? engine.begin(modelId) :
            engine.begin(modelId, maxOutputTokens + Math.max(0L, promptTokens));
        this.modelId = modelId;
        prefix.session(false, 0L);
        // Published last, as in start.
        endKind.set(OPEN);
        return STARTED;
    }

    private void clearAttempt()
    {
        meter.reset();
        prefix.abandoned();
        lease = InflightTracker.NO_LEASE;
        modelId = Handles.NONE;
        sentNs = 0;
        responseStatus = 0;
        streamed = false;
        endStatus = 0;
        retryAfterMs = 0;
        ttftMicros = -1;
        tpotMicros = -1;
    }

    /**
     * Sets what the next attempts' requests carry for eligibility and admission (section "Eligibility, request SLOs
     * and shedding" of docs/semantics.md), until set again.
     *
     * @param needs bits of {@link io.multifactor.api.Capability}.
     * @param maxTtftMs the request's own TTFT ceiling, 0 for none.
     * @param maxTpotMs the request's own TPOT ceiling, 0 for none.
     * @param priority a {@link Priority} code.
     */
    public void limits(final int needs, final double maxTtftMs, final double maxTpotMs, final int priority)
    {
        this.needs = needs;
        this.maxTtftMs = maxTtftMs;
        this.maxTpotMs = maxTpotMs;
        this.priority = priority;
    }

    /** @param nowNs when the request was written upstream (the engine's clock: {@link RequestFlow#nowNs()}). */
    public void onRequestSent(final long nowNs)
    {
        sentNs = nowNs;
    }

    /**
     * @param status the backend's HTTP status.
     * @param eventStream whether the response is a server-sent-event stream (then its chunks are measured).
     */
    public void onResponseStatus(final int status, final boolean eventStream)
    {
        responseStatus = status;
        streamed = eventStream && status >= 200 && status < 300;
        if (status < 200 || status >= 300)
        {
            prefix.abandoned();
        }
        else if (!eventStream)
        {
            prefix.answered();
        }
    }

    /**
     * As {@link #onResponseStatus(int, boolean)}, and feeds the response's ORCA load report (header
     * {@link ServingHeaders#LOAD_REPORT}), when it has one, to the engine as a scrape of the backend that answered
     * ({@link MultiFactorEngine#reportServerLoad}); a report the parser refuses, or for a model whose {@code server} is
     * not set, changes nothing. The parser is the calling thread's own; nothing is allocated per report.
     *
     * @param status the backend's HTTP status.
     * @param eventStream whether the response is a server-sent-event stream.
     * @param loadReportOrNull the value of {@link ServingHeaders#LOAD_REPORT}, or null.
     * @param backendKey the answering backend's origin ({@code http://host:port}, see {@link #backendKey}).
     * @return whether a load report was taken.
     */
    public boolean onResponseStatus(
        final int status, final boolean eventStream, final CharSequence loadReportOrNull, final String backendKey)
    {
        onResponseStatus(status, eventStream);
        if (loadReportOrNull == null || modelId == Handles.NONE)
        {
            return false;
        }
        final OrcaLoadReportParser parser = LOAD_REPORTS.get();
        return parser.parse(loadReportOrNull) &&
            engine.reportServerLoad(modelId, backendKey, parser.waiting(), parser.running(), parser.kvUse());
    }

    /**
     * @param backend a backend.
     * @return its origin as the server signals name it ({@code http://host:port}, brackets around an IPv6 host).
     */
    public static String backendKey(final Backend backend)
    {
        final String host = backend.host().indexOf(':') >= 0 ? '[' + backend.host() + ']' : backend.host();
        return (backend.https() ? "https://" : "http://") + host + ':' + backend.port();
    }

    /**
     * Follows the response's next bytes; records TTFT on the chosen model when they complete the first content chunk.
     * The bytes are read by the attempt's {@link SseStreamMeter} (the one definition of content, TTFT and TPOT), which
     * allocates nothing.
     *
     * @param bytes the bytes.
     * @param offset where they start.
     * @param length how many.
     * @param nowNs when they arrived (on the clock of {@link #onRequestSent}).
     */
    public void onResponseBytes(final byte[] bytes, final int offset, final int length, final long nowNs)
    {
        if (!streamed || endKind.get() != OPEN)
        {
            return;
        }
        if (prefix.isOpen())
        {
            // The backend's first chunk: it has the prompt's prefix now.
            prefix.answered();
        }
        if (meter.onBytes(bytes, offset, length, nowNs))
        {
            firstContent();
        }
    }

    /**
     * Follows one content chunk of a stream that the caller decodes itself (a framework's streaming callback: Spring AI's
     * {@code Flux}, LangChain4j's handler); the chunk is the proof of a streamed 2xx response. Records TTFT on the first,
     * through the same {@link SseStreamMeter} as {@link #onResponseBytes}, so TTFT and TPOT have one definition.
     *
     * @param nowNs when the chunk arrived (on the clock of {@link #onRequestSent}).
     */
    public void onContentChunk(final long nowNs)
    {
        if (endKind.get() != OPEN)
        {
            return;
        }
        streamed = true;
        if (meter.onContentChunk(nowNs))
        {
            firstContent();
        }
    }

    /**
     * @param completionTokens the completion tokens a decoded stream's usage reported (TPOT divides by them, as for a
     *     {@code usage} line of {@link #onResponseBytes}); ignored when negative.
     */
    public void onUsageCompletionTokens(final long completionTokens)
    {
        meter.onUsageCompletionTokens(completionTokens);
    }

    private void firstContent()
    {
        if (sentNs == 0)
        {
            return;
        }
        final long micros = (meter.firstContentNs() - sentNs) / 1_000L;
        if (micros > 0)
        {
            ttftMicros = micros;
            engine.recordTtftMicros(modelId, micros);
            prefix.firstTokenMicros(micros);
        }
    }

    /** @return whether the attempt has seen content (a chunk or a content line): after it, a failure is never retried. */
    public boolean hasContent()
    {
        return meter.contentChunks() > 0;
    }

    /**
     * The response ended normally: records TPOT (streamed, 2xx) and ends the lease.
     *
     * @param status the backend's status.
     * @return whether this call ended the attempt.
     */
    public boolean complete(final int status)
    {
        if (!endKind.compareAndSet(OPEN, COMPLETED))
        {
            return false;
        }
        if (streamed)
        {
            final long tpotNs = meter.tpotNs();
            if (tpotNs >= 1_000L)
            {
                tpotMicros = tpotNs / 1_000L;
                engine.recordTpotMicros(modelId, tpotMicros);
            }
        }
        end(status, 0, true);
        return true;
    }

    /**
     * The response reached its end with the backend's status: {@link #complete} below 400, else {@link #fail} (the
     * engine's ejection reads the status either way: a 4xx but 429 counts as a success, DESIGN 4.5).
     *
     * @param status the backend's status.
     * @param retryAfterMs the backend's {@code Retry-After} in milliseconds ({@link RetryAfter}), 0 when absent.
     * @return whether this call ended the attempt.
     */
    public boolean finish(final int status, final long retryAfterMs)
    {
        return status < 400 ? complete(status) : fail(status, retryAfterMs);
    }

    /**
     * @param contentTypeOrNull a response's {@code content-type}, or {@code null}.
     * @return whether it is a server-sent-event stream ({@code text/event-stream}, case ignored), whose chunks the
     *     lifecycle measures.
     */
    public static boolean isEventStream(final String contentTypeOrNull)
    {
        return contentTypeOrNull != null && contentTypeOrNull.regionMatches(true, 0, EVENT_STREAM, 0, EVENT_STREAM.length());
    }

    /**
     * @param contentTypeOrNull a response's {@code Content-Type}, or {@code null}.
     * @return whether it is JSON ({@code application/json}, case ignored, parameters allowed): a non-streamed answer whose
     *     {@code usage} the meter can read ({@link SseStreamMeter#onJsonBodyBytes}).
     */
    public static boolean isJson(final String contentTypeOrNull)
    {
        return contentTypeOrNull != null && contentTypeOrNull.regionMatches(true, 0, JSON, 0, JSON.length());
    }

    /**
     * The backend failed: an error status, or a connect failure, reset or timeout (status 0).
     *
     * @param status the backend's status, 0 when there was none.
     * @param retryAfterMs the backend's {@code Retry-After} in milliseconds, 0 when absent.
     * @return whether this call ended the attempt.
     */
    public boolean fail(final int status, final long retryAfterMs)
    {
        if (!endKind.compareAndSet(OPEN, FAILED))
        {
            return false;
        }
        end(status, retryAfterMs, true);
        return true;
    }

    /**
     * The client went away: ends the lease without a status.
     *
     * @return whether this call ended the attempt.
     */
    public boolean cancel()
    {
        if (!endKind.compareAndSet(OPEN, CANCELLED))
        {
            return false;
        }
        end(0, 0, false);
        return true;
    }

    /**
     * The one place a lease ends: with the backend's status and {@code Retry-After}, which the engine's ejection of
     * failing models reads, or without a status for a client's cancel (which says nothing about the backend).
     */
    private void end(final int status, final long retryAfterMs, final boolean reported)
    {
        this.endStatus = status;
        this.retryAfterMs = retryAfterMs;
        prefix.abandoned();
        prefix.ended();
        if (reported)
        {
            engine.end(lease, status, retryAfterMs);
        }
        else
        {
            engine.end(lease);
        }
    }

    /** @return the request of the attempt under way or last made (read-only to the caller). */
    public Request request()
    {
        return request;
    }

    /** @return the selection that chose (its explain JSON: {@link ExplainJson#compact(io.multifactor.kernel.plan.Plans, Selection)}). */
    public Selection selection()
    {
        return selection;
    }

    /** @return the chosen model's handle, {@link Handles#NONE} before a successful start. */
    public int modelId()
    {
        return modelId;
    }

    /** @return the lease, {@link InflightTracker#NO_LEASE} when none was taken. */
    public long lease()
    {
        return lease;
    }

    /** @return {@link #OPEN}, {@link #COMPLETED}, {@link #FAILED} or {@link #CANCELLED}; -1 before a start. */
    public int endKind()
    {
        return endKind.get();
    }

    /** @return the status the attempt ended with (0 for a cancel or a failure without status). */
    public int endStatus()
    {
        return endStatus;
    }

    /** @return the {@code Retry-After} of a failure in milliseconds, 0 when none. */
    public long retryAfterMs()
    {
        return retryAfterMs;
    }

    /** @return the backend's response status, 0 before it came. */
    public int responseStatus()
    {
        return responseStatus;
    }

    /** @return the TTFT recorded for this attempt in microseconds, -1 when none. */
    public long ttftMicros()
    {
        return ttftMicros;
    }

    /** @return the TPOT recorded for this attempt in microseconds, -1 when none. */
    public long tpotMicros()
    {
        return tpotMicros;
    }

    /**
     * @return this attempt's part in prefix-cache affinity: give it to
     *     {@link BackendChooser#choose(int, PromptBlocks, long, PrefixTicket)}; the lifecycle answers it on the
     *     backend's first chunk (or a 2xx non-streamed status) and abandons it on any other end.
     */
    public PrefixTicket prefixTicket()
    {
        return prefix;
    }

    /** @return the stream's meter (content chunks, usage), for reports and tests. */
    public SseStreamMeter meter()
    {
        return meter;
    }
}
