package io.multifactor.config.yaml;

/**
 * Shortens what a message quotes from the input, so that a huge value or a deep path never makes a huge message: a
 * value past {@value #MAX_VALUE_CHARS} characters keeps its start and says how long it was, a path past
 * {@value #MAX_PATH_CHARS} characters keeps its start and its end.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Excerpt
{
    /** Longest value quoted whole in a message. */
    public static final int MAX_VALUE_CHARS = 80;

    /** Longest path shown whole in a message. */
    public static final int MAX_PATH_CHARS = 120;

    /** Longest message kept whole; a longer one (some part of it was not shortened at its source) is cut in the middle. */
    public static final int MAX_MESSAGE_CHARS = 400;

    private Excerpt()
    {
    }

    /**
     * @param text a value from the input.
     * @return the value, or its first {@value #MAX_VALUE_CHARS} characters followed by {@code ... (N characters)}.
     */
    public static String value(final String text)
    {
        if (text.length() <= MAX_VALUE_CHARS)
        {
            return text;
        }
        return text.substring(0, MAX_VALUE_CHARS) + "... (" + text.length() + " characters)";
    }

    /**
     * @param path a path such as {@code decisions[1].modelRefs[0].model}.
     * @return the path, or its start and end around {@code ...} when longer than {@value #MAX_PATH_CHARS} characters.
     */
    public static String path(final String path)
    {
        return middle(path, MAX_PATH_CHARS);
    }

    /**
     * @param message a whole message.
     * @return the message, or its start and end around {@code ...} when longer than {@value #MAX_MESSAGE_CHARS}.
     */
    public static String message(final String message)
    {
        return middle(message, MAX_MESSAGE_CHARS);
    }

    private static String middle(final String text, final int max)
    {
        if (text.length() <= max)
        {
            return text;
        }
        final int head = max / 2;
        final int tail = max - head - 5;
        return text.substring(0, head) + " ... " + text.substring(text.length() - tail);
    }
}
