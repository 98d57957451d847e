package io.multifactor.api;

/**
 * What a request may need from a model, as bits of a mask ({@link Request#needs(int)}, a model's
 * {@code capabilities}): calling tools, reading images, answering to a JSON schema. A model without a
 * {@code capabilities} list has {@link #ALL}; one with {@code []} has none, so any need drops it (reason
 * {@link DropReason#CAPABILITY}).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Capability
{
    /** The request calls tools ({@code tools} or {@code functions} in an OpenAI body). */
    public static final int TOOLS = 1;

    /** The request shows images (an {@code image_url} content part). */
    public static final int VISION = 1 << 1;

    /** The request asks for a JSON schema answer ({@code response_format.type: json_schema}). */
    public static final int JSON_SCHEMA = 1 << 2;

    /** Every capability: a model that does not list its capabilities has them all. */
    public static final int ALL = TOOLS | VISION | JSON_SCHEMA;

    /** Number of capabilities (bits 0 to {@code COUNT - 1}). */
    public static final int COUNT = 3;

    private static final String[] LABELS = { "tools", "vision", "json_schema" };

    private Capability()
    {
    }

    /**
     * @param bit one capability bit of this class, such as {@link #VISION}.
     * @return its YAML spelling, such as {@code "vision"}.
     * @throws IllegalArgumentException for a value that is not one bit of this class.
     */
    public static String label(final int bit)
    {
        if (Integer.bitCount(bit) != 1 || (bit & ALL) == 0)
        {
            throw new IllegalArgumentException("not one capability: " + bit);
        }
        return LABELS[Integer.numberOfTrailingZeros(bit)];
    }

    /**
     * @param label a YAML spelling, such as {@code "tools"}.
     * @return its bit, or 0 when the spelling is unknown.
     */
    public static int parse(final String label)
    {
        for (int i = 0; i < LABELS.length; i++)
        {
            if (LABELS[i].equals(label))
            {
                return 1 << i;
            }
        }
        return 0;
    }

    /** @return the YAML spellings, in bit order. */
    public static String[] labels()
    {
        return LABELS.clone();
    }

    /**
     * The first capability of a mask, in bit order: what {@code explain} names for a model that lacks several.
     *
     * @param mask a non-empty mask of this class's bits.
     * @return its lowest bit's label.
     */
    public static String firstLabel(final int mask)
    {
        return label(Integer.lowestOneBit(mask));
    }
}
