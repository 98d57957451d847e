package io.multifactor.api;

/**
 * The signal table: every scoring factor described once, by index. Weights, normalized values, bounds, the kernel's
 * scoring loop, {@code explain}, the configuration readers and the reference implementation iterate it, so a new factor
 * is an entry here and one source of values (a {@link FactorSource}), not an edit of every layer.
 * <pre>
 *   index  label      better  source                                         symbol  decimals  title
 *   0      quality    higher  configuration (quality_score)                  Q       3         quality
 *   1      latency    lower   latency estimator (TPOT, else TTFT)            L       1         latency
 *   2      cost       lower   configuration (prices under the cost mix)      C       3         cost
 *   3      load       lower   leases (in-flight requests, or tokens)         N       0         load
 *   4      queue      lower   model-server metrics (waiting requests)        W       0         queue
 *   5      kv_cache   lower   model-server metrics (KV-cache use, 0..1)      K       3         KV-cache
 *   6      prefix     higher  the request (its cached prompt share, 0..1)    P       3         prefix
 * </pre>
 * The first four are the seed's factors: a decision without {@code weights} gives each 0.25 and the others 0. The
 * others are shown by {@code explain} and the reports only where a decision weighs them or a candidate has them, each
 * under its label, its symbol (normalized column {@code n} + symbol), its decimals and its title.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Factor
{
    /** Configured {@code quality_score}; higher is better. */
    public static final int QUALITY = 0;

    /** Observed latency (by default the TPOT percentile, else TTFT; see {@link LatencyMetric}); lower is better. */
    public static final int LATENCY = 1;

    /** Configured price per 1M tokens ({@code prompt_per_1m}, or the decision's {@code cost_mix}); lower is better. */
    public static final int COST = 2;

    /** Current in-flight load (requests, or tokens with {@code load_metric: tokens}); lower is better. */
    public static final int LOAD = 3;

    /** Requests waiting on the model's freshest-scraped servers (the smallest queue); lower is better. */
    public static final int QUEUE = 4;

    /** KV-cache use of the model's servers, 0..1 (the emptiest server's); lower is better. */
    public static final int KV_CACHE = 5;

    /**
     * The share of this request's prompt already cached on the backend the model's requests would go to, 0..1, supplied
     * per request ({@code Request.prefixMatch}); higher is better.
     */
    public static final int PREFIX = 6;

    /** Number of factors. */
    public static final int COUNT = 7;

    /** Number of the seed's factors (quality, latency, cost, load), which share the default weights. */
    public static final int SEED_COUNT = 4;

    private static final String[] LABELS = { "quality", "latency", "cost", "load", "queue", "kv_cache", "prefix" };
    private static final boolean[] LOWER_IS_BETTER = { false, true, true, true, true, true, false };
    private static final int[] SOURCES = {
        FactorSource.CONFIGURATION, FactorSource.LATENCY_ESTIMATOR, FactorSource.CONFIGURATION, FactorSource.LEASES,
        FactorSource.SERVER_METRICS, FactorSource.SERVER_METRICS, FactorSource.REQUEST };

    private static final String[] SYMBOLS = { "Q", "L", "C", "N", "W", "K", "P" };
    private static final int[] DECIMALS = { 3, 1, 3, 0, 0, 3, 3 };
    private static final String[] TITLES = { "quality", "latency", "cost", "load", "queue", "KV-cache", "prefix" };

    private Factor()
    {
    }

    /**
     * The YAML key of a factor.
     *
     * @param factor one of the indices of this class.
     * @return its label, such as {@code "latency"}.
     * @throws IllegalArgumentException for an index that is not one of this class.
     */
    public static String label(final int factor)
    {
        check(factor);
        return LABELS[factor];
    }

    /**
     * @param factor one of the indices of this class.
     * @return whether a lower value is better (then its normalized value is inverted as {@code 1 - t}).
     * @throws IllegalArgumentException for an index that is not one of this class.
     */
    public static boolean lowerIsBetter(final int factor)
    {
        check(factor);
        return LOWER_IS_BETTER[factor];
    }

    /**
     * @param factor one of the indices of this class.
     * @return the {@link FactorSource} code of where its values come from.
     * @throws IllegalArgumentException for an index that is not one of this class.
     */
    public static int source(final int factor)
    {
        check(factor);
        return SOURCES[factor];
    }

    /**
     * @param factor one of the indices of this class.
     * @return its one-letter symbol, such as {@code "L"} (a report's normalized column is {@code "nL"}).
     * @throws IllegalArgumentException for an index that is not one of this class.
     */
    public static String symbol(final int factor)
    {
        check(factor);
        return SYMBOLS[factor];
    }

    /**
     * @param factor one of the indices of this class.
     * @return how many decimals a report prints of its value (its unit's resolution: 0 for a count).
     * @throws IllegalArgumentException for an index that is not one of this class.
     */
    public static int decimals(final int factor)
    {
        check(factor);
        return DECIMALS[factor];
    }

    /**
     * @param factor one of the indices of this class.
     * @return its name in prose, such as {@code "KV-cache"}.
     * @throws IllegalArgumentException for an index that is not one of this class.
     */
    public static String title(final int factor)
    {
        check(factor);
        return TITLES[factor];
    }

    /**
     * @param label a YAML spelling, such as {@code "cost"}.
     * @return its index, or -1 when the spelling is unknown.
     */
    public static int parse(final String label)
    {
        for (int i = 0; i < COUNT; i++)
        {
            if (LABELS[i].equals(label))
            {
                return i;
            }
        }
        return -1;
    }

    private static void check(final int factor)
    {
        if (factor < 0 || factor >= COUNT)
        {
            throw new IllegalArgumentException("unknown factor: " + factor);
        }
    }
}
