package io.multifactor.config.yaml;

/**
 * The limits on what a configuration (or scenario, or profile) file may hold, checked before the costly work they
 * bound, each refused with its own located message: the file's size (before it is read), the length of a line and of
 * a value (before and while it is parsed), and how deeply it nests. Validation adds a limit on names.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class InputLimits
{
    /** Largest file read: 1 MiB. A larger one is refused by its size, before it is read. */
    public static final int MAX_FILE_BYTES = 1 << 20;

    /** Longest line, and longest value (key or scalar): 65,536 characters. */
    public static final int MAX_VALUE_CHARS = 1 << 16;

    /** Deepest nesting of lists and mappings: 64 levels. */
    public static final int MAX_DEPTH = 64;

    private InputLimits()
    {
    }

    /**
     * @param count a count.
     * @return the count with thousands separators, as messages show sizes.
     */
    static String grouped(final long count)
    {
        return String.format(java.util.Locale.ROOT, "%,d", count);
    }
}
