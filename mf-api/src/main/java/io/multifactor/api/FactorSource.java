package io.multifactor.api;

/**
 * Where the values of a {@link Factor} come from: codes of the signal table's source column.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class FactorSource
{
    /** The configuration: a model's {@code quality_score} or prices; fixed until a reload. */
    public static final int CONFIGURATION = 0;

    /** A latency estimator over the model's observed samples (the percentile window, or peak-EWMA). */
    public static final int LATENCY_ESTIMATOR = 1;

    /** The engine's lease counters (in-flight requests or tokens). */
    public static final int LEASES = 2;

    /** Metrics the model's servers publish, scraped or reported (queue, KV-cache use). */
    public static final int SERVER_METRICS = 3;

    /** The request itself: a value the caller supplies per request (the cached prompt share, {@code prefix}). */
    public static final int REQUEST = 4;

    /** Number of codes. */
    public static final int COUNT = 5;

    private static final String[] LABELS = { "configuration", "latency_estimator", "leases", "server_metrics", "request" };

    private FactorSource()
    {
    }

    /**
     * @param source one of the codes of this class.
     * @return its label, such as {@code "leases"}.
     * @throws IllegalArgumentException for a code that is not one of this class.
     */
    public static String label(final int source)
    {
        if (source < 0 || source >= COUNT)
        {
            throw new IllegalArgumentException("unknown factor source: " + source);
        }
        return LABELS[source];
    }
}
