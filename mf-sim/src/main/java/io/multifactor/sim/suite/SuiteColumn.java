package io.multifactor.sim.suite;

import io.multifactor.sim.SteadyFigures;

/**
 * The columns of the suite's tables, each once: its title, whether higher is better, how it is printed and where its
 * value comes from in a run's {@link SteadyFigures}. The table, its best marks and the charts iterate them.
 * <p>
 * This enum is immutable and threadsafe.
 */
public enum SuiteColumn
{
    /** Share of the measured requests that met their ceilings (errors and shed requests miss). */
    SLO_ATTAINMENT("SLO attainment", true, 100.0, "%.1f%%"),
    /** Median TTFT, milliseconds. */
    TTFT_P50_MS("TTFT p50 ms", false, 1.0, "%.0f"),
    /** 90th percentile TTFT, milliseconds. */
    TTFT_P90_MS("TTFT p90 ms", false, 1.0, "%.0f"),
    /** 99th percentile TTFT, milliseconds. */
    TTFT_P99_MS("TTFT p99 ms", false, 1.0, "%.0f"),
    /** 99th percentile TPOT, milliseconds. */
    TPOT_P99_MS("TPOT p99 ms", false, 1.0, "%.1f"),
    /** Requests answered with an error or for which nothing was selected. */
    ERRORS("errors", false, 1.0, "%.0f"),
    /** Prompt tokens of the requests that got a place, per second. */
    INPUT_TOKENS_PER_S("input tok/s", true, 1.0, "%.0f"),
    /** The servers' prefix-cache hits / queries, in tokens. */
    PREFIX_HIT_RATE("prefix hits", true, 100.0, "%.1f%%");

    private final String title;
    private final boolean higherIsBetter;
    private final double scale;
    private final String format;

    SuiteColumn(final String title, final boolean higherIsBetter, final double scale, final String format)
    {
        this.title = title;
        this.higherIsBetter = higherIsBetter;
        this.scale = scale;
        this.format = format;
    }

    /** @return the column's title. */
    public String title()
    {
        return title;
    }

    /** @return whether a higher value is better. */
    public boolean higherIsBetter()
    {
        return higherIsBetter;
    }

    /**
     * @param value a value of this column.
     * @return it as printed (percent for a share), {@code -} for NaN.
     */
    public String format(final double value)
    {
        return Double.isNaN(value) ? "-" : String.format(java.util.Locale.ROOT, format, value * scale);
    }

    /**
     * @param figures one run's figures.
     * @return this column's value for it (NaN when it has none, such as a hit rate without servers).
     */
    public double of(final SteadyFigures figures)
    {
        switch (this)
        {
            case SLO_ATTAINMENT:
                return figures.sloAttainment();
            case TTFT_P50_MS:
                return figures.ttftMs(50);
            case TTFT_P90_MS:
                return figures.ttftMs(90);
            case TTFT_P99_MS:
                return figures.ttftMs(99);
            case TPOT_P99_MS:
                return figures.tpotMs(99);
            case ERRORS:
                return figures.errors();
            case INPUT_TOKENS_PER_S:
                return figures.inputTokensPerS();
            default:
                return figures.prefixHitRate();
        }
    }
}
