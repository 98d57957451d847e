package io.multifactor.config.read;

/**
 * How much edit-distance work one validation may still spend on "did you mean" hints, counted in cells of the
 * distance table (one cell is one character of one name against one of another). A file with thousands of unknown
 * names among thousands of valid ones would otherwise cost names x names x length x length; once the budget is spent,
 * the remaining unknown names are still reported, without a hint.
 * <p>
 * This class is not threadsafe: one validation spends it on one thread.
 */
public final class SuggestionBudget
{
    /**
     * Cells one validation may compute: some tens of milliseconds of work, far more than any hand-written file needs
     * (one unknown 30-character name against 1,000 valid ones costs at most about 0.7 M cells).
     */
    public static final long DEFAULT_CELLS = 4_000_000L;

    private long remainingCells;

    /**
     * @param cells cells of distance table that may be computed, at least 0.
     */
    public SuggestionBudget(final long cells)
    {
        if (cells < 0)
        {
            throw new IllegalArgumentException("cells must be >= 0, got " + cells);
        }
        this.remainingCells = cells;
    }

    /** @return a budget of {@link #DEFAULT_CELLS}. */
    public static SuggestionBudget ofDefault()
    {
        return new SuggestionBudget(DEFAULT_CELLS);
    }

    /**
     * Takes cells from the budget when it still holds them all.
     *
     * @param cells cells about to be computed.
     * @return whether they may be computed (else nothing is taken and the comparison is not made).
     */
    boolean spend(final long cells)
    {
        if (cells > remainingCells)
        {
            remainingCells = 0;
            return false;
        }
        remainingCells -= cells;
        return true;
    }

    /** @return whether the budget is spent: no further comparison is made. */
    public boolean spent()
    {
        return remainingCells == 0;
    }

    /** @return cells still available. */
    public long remainingCells()
    {
        return remainingCells;
    }
}
