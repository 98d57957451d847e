package io.multifactor.serving;

import io.multifactor.kernel.inflight.RecentRequests;
import io.multifactor.kernel.latency.RecentLatencies;
import io.multifactor.kernel.scoring.ProdstackSession;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What a model's {@code backend_choice} rule reads of one of its backends, kept by this process: the attempts sent to
 * it and not yet ended (the least-busy rules), its last TTFT samples ({@code litellm_latency}, {@code lowest_latency}),
 * the requests sent to it over {@code request_stats_window} ({@code prodstack_session}) and the hash of its origin
 * ({@code prodstack_session}'s consistent hash). An attempt's {@link PrefixTicket} counts it in when the backend is
 * chosen and out when the attempt ends, and gives it the attempt's TTFT.
 * <p>
 * This class is threadsafe and can be used across threads: every field is atomic or threadsafe itself.
 */
public final class BackendSignals
{
    private final String key;
    private final long nodeHash;
    private final AtomicLong inflight = new AtomicLong();
    private final RecentLatencies ttft = new RecentLatencies();
    private final RecentRequests routed;
    private final LongSupplier clockNs;

    /**
     * @param key the backend's origin ({@link RequestLifecycle#backendKey}).
     * @param requestStatsWindowNs the window of its request rate.
     * @param clockNs the clock that times its samples and requests.
     */
    BackendSignals(final String key, final long requestStatsWindowNs, final LongSupplier clockNs)
    {
        this.key = key;
        this.nodeHash = ProdstackSession.nodeHash(key);
        this.routed = new RecentRequests(requestStatsWindowNs);
        this.clockNs = clockNs;
    }

    /** @return the backend's origin. */
    public String key()
    {
        return key;
    }

    /** @return the attempts sent to it by this process and not yet ended. */
    public long inflight()
    {
        return inflight.get();
    }

    /** @return its last TTFT samples. */
    public RecentLatencies ttft()
    {
        return ttft;
    }

    /** @return the requests sent to it over the window. */
    public RecentRequests routed()
    {
        return routed;
    }

    long nodeHash()
    {
        return nodeHash;
    }

    long nowNs()
    {
        return clockNs.getAsLong();
    }

    void begun()
    {
        inflight.incrementAndGet();
    }

    void ended()
    {
        inflight.decrementAndGet();
    }

    void firstTokenMicros(final long micros)
    {
        ttft.record(clockNs.getAsLong(), micros);
    }
}
