package io.multifactor.config.yaml;

/**
 * A YAML scalar: its kind as the YAML resolver typed it, its text as written, and for numbers their value.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param line 1-based line of the scalar.
 * @param column 1-based column of the scalar.
 * @param kind how the scalar was typed.
 * @param text the scalar as written (for a quoted string, without the quotes).
 * @param doubleValue the value of a number ({@code .inf} and {@code .nan} included), NaN for other kinds.
 * @param longValue the value of an integer that fits a {@code long}, else 0.
 * @param fitsLong whether this is an integer that fits a {@code long}.
 */
public record YamlScalar(
    int line, int column, Kind kind, String text, double doubleValue, long longValue, boolean fitsLong)
    implements YamlNode
{
    /** How the YAML resolver typed a scalar. */
    public enum Kind
    {
        /** A string, quoted or plain. */
        STRING,
        /** An integer literal. */
        INTEGER,
        /** A floating-point literal, {@code .inf} and {@code .nan} included. */
        FLOAT,
        /** {@code true} or {@code false} (and the YAML 1.1 spellings). */
        BOOLEAN,
        /** {@code null}, {@code ~} or nothing. */
        NULL
    }

    /** @return whether this scalar is an integer or floating-point literal. */
    public boolean isNumber()
    {
        return kind == Kind.INTEGER || kind == Kind.FLOAT;
    }

    @Override
    public String describe()
    {
        switch (kind)
        {
            case STRING:
                return "string \"" + Excerpt.value(text) + '"';
            case NULL:
                return "null";
            default:
                return Excerpt.value(text);
        }
    }
}
