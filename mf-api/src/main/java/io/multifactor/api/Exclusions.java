package io.multifactor.api;

/**
 * The set of models one request leaves out (for example the one that just failed, on a retry). A bit set over model
 * handles, owned by the caller and reused: {@link #clear()} between requests.
 * <p>
 * {@link #add(int)} grows the set the first time a handle beyond its capacity is added (the only allocation);
 * {@link #contains(int)} never allocates.
 * <p>
 * This class is not threadsafe: give each thread its own instance.
 */
public final class Exclusions
{
    private static final int DEFAULT_CAPACITY = 256;

    private long[] words;
    private int size;

    /** An empty set sized for handles below 256; it grows on demand. */
    public Exclusions()
    {
        this(DEFAULT_CAPACITY);
    }

    /**
     * An empty set sized for handles below {@code capacity}; it grows on demand.
     *
     * @param capacity number of model handles to cover without growing.
     */
    public Exclusions(final int capacity)
    {
        words = new long[Math.max(1, (capacity + 63) >>> 6)];
    }

    /**
     * Leaves a model out. A negative handle (such as {@link Handles#NONE}) is ignored.
     *
     * @param modelId handle of the model.
     * @return this set, for chaining.
     */
    public Exclusions add(final int modelId)
    {
        if (modelId >= 0)
        {
            final int word = modelId >>> 6;
            if (word >= words.length)
            {
                growSlowPath(word);
            }
            final long bit = 1L << modelId;
            if ((words[word] & bit) == 0)
            {
                words[word] |= bit;
                size++;
            }
        }
        return this;
    }

    /**
     * @param modelId handle of the model.
     * @return whether this request leaves the model out.
     */
    public boolean contains(final int modelId)
    {
        final int word = modelId >>> 6;
        return modelId >= 0 && word < words.length && (words[word] & (1L << modelId)) != 0;
    }

    /** @return number of models left out. */
    public int size()
    {
        return size;
    }

    /** @return whether no model is left out. */
    public boolean isEmpty()
    {
        return size == 0;
    }

    /** Empties the set for the next request, keeping its storage. */
    public void clear()
    {
        if (size != 0)
        {
            java.util.Arrays.fill(words, 0L);
            size = 0;
        }
    }

    private void growSlowPath(final int word)
    {
        words = java.util.Arrays.copyOf(words, Math.max(word + 1, words.length * 2));
    }
}
