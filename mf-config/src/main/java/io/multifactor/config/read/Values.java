package io.multifactor.config.read;

import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;

/**
 * Checks single YAML values (numbers, integers, strings, durations) and reports what is wrong with them, naming the
 * offending value, into {@link Problems}. Each method returns the value, or a harmless placeholder after reporting an
 * error (the file is refused anyway).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Values
{
    private Values()
    {
    }

    /**
     * A finite number.
     *
     * @param node the value.
     * @param path its path.
     * @param problems where to report.
     * @param nonNegative whether a negative value is an error.
     * @return the value, or NaN after reporting an error.
     */
    public static double number(final YamlNode node, final String path, final Problems problems, final boolean nonNegative)
    {
        if (!(node instanceof YamlScalar) || !((YamlScalar)node).isNumber())
        {
            problems.error(node, path, "expected a number, got " + node.describe());
            return Double.NaN;
        }
        final YamlScalar scalar = (YamlScalar)node;
        final double value = scalar.doubleValue();
        if (Double.isNaN(value) || Double.isInfinite(value))
        {
            problems.error(node, path, "must be a finite number, got " + Excerpt.value(scalar.text()));
            return Double.NaN;
        }
        if (nonNegative && value < 0.0)
        {
            problems.error(node, path, "must be >= 0, got " + Excerpt.value(scalar.text()));
            return Double.NaN;
        }
        return value;
    }

    /**
     * An integer in a range.
     *
     * @param node the value.
     * @param path its path.
     * @param problems where to report.
     * @param min smallest accepted value.
     * @param max largest accepted value.
     * @return the value, or {@code min} after reporting an error.
     */
    public static long integer(
        final YamlNode node, final String path, final Problems problems, final long min, final long max)
    {
        if (!(node instanceof YamlScalar) || ((YamlScalar)node).kind() != YamlScalar.Kind.INTEGER)
        {
            problems.error(node, path, "expected an integer, got " + node.describe());
            return min;
        }
        final YamlScalar scalar = (YamlScalar)node;
        if (!scalar.fitsLong() || scalar.longValue() < min || scalar.longValue() > max)
        {
            // A value too large for a long is out of range upwards: say so, never "must be >= 0" for a huge number.
            final boolean onlyTooSmall = max == Long.MAX_VALUE && scalar.fitsLong();
            problems.error(node, path, (onlyTooSmall ? "must be >= " + min : "must be in " + min + ".." + max) +
                ", got " + Excerpt.value(scalar.text()));
            return min;
        }
        return scalar.longValue();
    }

    /** Longest name of a model, a decision or a recipe: 256 characters. */
    public static final int MAX_NAME_CHARS = 256;

    /**
     * A name: a non-empty string of at most {@link #MAX_NAME_CHARS} characters.
     *
     * @param node the value.
     * @param path its path.
     * @param problems where to report.
     * @return the name, or {@code null} after reporting an error.
     */
    public static String name(final YamlNode node, final String path, final Problems problems)
    {
        final String text = string(node, path, problems);
        if (text != null && text.length() > MAX_NAME_CHARS)
        {
            problems.error(node, path, "name too long: " + text.length() + " characters, the limit is " +
                MAX_NAME_CHARS + ", got \"" + Excerpt.value(text) + '"');
            return null;
        }
        return text;
    }

    /**
     * A non-empty string.
     *
     * @param node the value.
     * @param path its path.
     * @param problems where to report.
     * @return the string, or {@code null} after reporting an error.
     */
    public static String string(final YamlNode node, final String path, final Problems problems)
    {
        if (!(node instanceof YamlScalar) || ((YamlScalar)node).kind() != YamlScalar.Kind.STRING)
        {
            problems.error(node, path, "expected a string, got " + node.describe());
            return null;
        }
        final String text = ((YamlScalar)node).text();
        if (text.isBlank())
        {
            problems.error(node, path, "must not be empty, got \"" + Excerpt.value(text) + '"');
            return null;
        }
        return text;
    }

    /**
     * A positive duration such as {@code 60s}.
     *
     * @param node the value.
     * @param path its path.
     * @param problems where to report.
     * @return the duration in nanoseconds, or {@link Durations#INVALID} after reporting an error.
     */
    public static long durationNs(final YamlNode node, final String path, final Problems problems)
    {
        if (!(node instanceof YamlScalar) || ((YamlScalar)node).kind() == YamlScalar.Kind.NULL ||
            ((YamlScalar)node).kind() == YamlScalar.Kind.BOOLEAN)
        {
            problems.error(node, path, "expected a duration such as 60s, 250ms or 10m, got " + node.describe());
            return Durations.INVALID;
        }
        final String text = ((YamlScalar)node).text();
        final long ns = Durations.parseNs(text);
        if (ns == Durations.INVALID)
        {
            problems.error(node, path, "expected a duration such as 60s, 250ms or 10m (units ns, us, ms, s, m, h), got \"" +
                Excerpt.value(text) + '"');
            return Durations.INVALID;
        }
        if (ns == 0)
        {
            problems.error(node, path, "must be a positive duration, got " + Excerpt.value(text));
            return Durations.INVALID;
        }
        return ns;
    }
}
