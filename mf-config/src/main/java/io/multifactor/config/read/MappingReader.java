package io.multifactor.config.read;

import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlEntry;
import io.multifactor.config.yaml.YamlMapping;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlScalar;
import io.multifactor.config.yaml.YamlSequence;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one YAML mapping against the keys it may hold: on creation it reports every unknown key (at the key itself, with
 * the nearest valid key) and every duplicate key; then it hands out typed values, reporting wrong ones.
 * <p>
 * An explicit {@code null} (such as {@code slo:} with nothing under it) reads as an empty mapping.
 * <p>
 * This class is not threadsafe: one validation uses it on one thread.
 */
public final class MappingReader
{
    private final YamlNode node;
    private final String path;
    private final Problems problems;
    private final Map<String, YamlEntry> entries = new HashMap<>();
    private final List<YamlEntry> ignored = new ArrayList<>();

    private MappingReader(final YamlNode node, final String path, final Problems problems)
    {
        this.node = node;
        this.path = path;
        this.problems = problems;
    }

    /**
     * Opens a mapping.
     *
     * @param node the node that should be a mapping.
     * @param path its path; empty for the root.
     * @param problems where to report.
     * @param keys every key the mapping may hold, in the order of the documentation.
     * @return a reader; empty (every key absent) when the node is not a mapping, which is reported.
     */
    public static MappingReader open(
        final YamlNode node, final String path, final Problems problems, final List<String> keys)
    {
        return open(node, path, problems, keys, true);
    }

    /**
     * Opens a mapping of a file whose other keys belong to another program (vLLM Semantic Router's files): a key
     * outside {@code keys} is not reported but kept in {@link #ignored()}; a duplicate of a listed key is reported.
     *
     * @param node the node that should be a mapping.
     * @param path its path; empty for the root.
     * @param problems where to report.
     * @param keys the keys this library reads.
     * @return a reader; empty (every key absent) when the node is not a mapping, which is reported.
     */
    public static MappingReader openIgnoringOthers(
        final YamlNode node, final String path, final Problems problems, final List<String> keys)
    {
        return open(node, path, problems, keys, false);
    }

    private static MappingReader open(
        final YamlNode node, final String path, final Problems problems, final List<String> keys,
        final boolean refuseOthers)
    {
        final MappingReader reader = new MappingReader(node, path, problems);
        if (node instanceof YamlScalar && ((YamlScalar)node).kind() == YamlScalar.Kind.NULL)
        {
            return reader;
        }
        if (!(node instanceof YamlMapping))
        {
            problems.error(node, path, "expected a mapping, got " + node.describe());
            return reader;
        }
        for (final YamlEntry entry : ((YamlMapping)node).entries())
        {
            final String key = entry.key();
            final String keyPath = reader.path(key);
            if (!keys.contains(key))
            {
                if (refuseOthers)
                {
                    problems.error(entry.keyLine(), entry.keyColumn(), keyPath,
                        "unknown key \"" + Excerpt.value(key) + '"' + problems.suggestion(key, keys));
                }
                else
                {
                    reader.ignored.add(entry);
                }
                continue;
            }
            final YamlEntry first = reader.entries.putIfAbsent(key, entry);
            if (first != null)
            {
                problems.error(entry.keyLine(), entry.keyColumn(), keyPath,
                    "duplicate key \"" + Excerpt.value(key) + "\" (first at line " + first.keyLine() + ")");
            }
        }
        return reader;
    }

    /**
     * @return the entries of a mapping {@link #openIgnoringOthers opened ignoring others} whose keys were not read, in
     *     file order; empty for a mapping opened with {@link #open}.
     */
    public List<YamlEntry> ignored()
    {
        return List.copyOf(ignored);
    }

    /**
     * Reports, as unknown keys, the {@link #ignored()} entries whose key is not in {@code tolerated}, suggesting the
     * nearest of the read and tolerated keys: for a mapping where only some foreign keys are expected.
     *
     * @param read the keys the mapping was opened with.
     * @param tolerated foreign keys that are ignored without a word.
     */
    public void refuseIgnoredOutside(final List<String> read, final List<String> tolerated)
    {
        final List<String> valid = new ArrayList<>(read);
        valid.addAll(tolerated);
        for (final YamlEntry entry : ignored)
        {
            if (!tolerated.contains(entry.key()))
            {
                problems.error(entry.keyLine(), entry.keyColumn(), path(entry.key()),
                    "unknown key \"" + Excerpt.value(entry.key()) + '"' + problems.suggestion(entry.key(), valid));
            }
        }
    }

    /**
     * @param key an optional key.
     * @param keys the keys of the nested mapping this library reads; others are ignored.
     * @return a reader of the nested mapping {@link #openIgnoringOthers opened ignoring others}, or {@code null} when
     *     the key is absent.
     */
    public MappingReader optionalMappingIgnoringOthers(final String key, final List<String> keys)
    {
        return has(key) ? openIgnoringOthers(value(key), path(key), problems, keys) : null;
    }

    /** @return the mapping node itself. */
    public YamlNode node()
    {
        return node;
    }

    /** @return path of the mapping. */
    public String path()
    {
        return path;
    }

    /**
     * @param key a key.
     * @return path of that key's value.
     */
    public String path(final String key)
    {
        return path.isEmpty() ? key : path + '.' + key;
    }

    /** @return where to report. */
    public Problems problems()
    {
        return problems;
    }

    /**
     * @param key a key.
     * @return whether the mapping holds it.
     */
    public boolean has(final String key)
    {
        return entries.containsKey(key);
    }

    /**
     * @param key a key.
     * @return its value (the first, if duplicated), or {@code null} when absent.
     */
    public YamlNode value(final String key)
    {
        final YamlEntry entry = entries.get(key);
        return entry == null ? null : entry.value();
    }

    /**
     * Reports a missing required key at the mapping.
     *
     * @param key a key.
     * @return whether the key is present.
     */
    public boolean require(final String key)
    {
        if (has(key))
        {
            return true;
        }
        problems.error(node, path(key), "missing required key \"" + key + '"');
        return false;
    }

    /**
     * @param key a required key.
     * @return its non-empty string value, or {@code null} after reporting a problem.
     */
    public String requiredString(final String key)
    {
        return require(key) ? Values.string(value(key), path(key), problems) : null;
    }

    /**
     * @param key a required key whose value names a model, a decision or a recipe.
     * @return its non-empty name of at most {@link Values#MAX_NAME_CHARS} characters, or {@code null} after reporting
     *     a problem.
     */
    public String requiredName(final String key)
    {
        return require(key) ? Values.name(value(key), path(key), problems) : null;
    }

    /**
     * @param key an optional key.
     * @param absent returned when the key is absent.
     * @return its non-empty string value, {@code absent}, or {@code null} after reporting a problem.
     */
    public String optionalString(final String key, final String absent)
    {
        return has(key) ? Values.string(value(key), path(key), problems) : absent;
    }

    /**
     * @param key an optional key.
     * @param absent returned when the key is absent.
     * @param nonNegative whether a negative value is an error.
     * @return its finite value, {@code absent}, or NaN after reporting a problem.
     */
    public double optionalNumber(final String key, final double absent, final boolean nonNegative)
    {
        return has(key) ? Values.number(value(key), path(key), problems, nonNegative) : absent;
    }

    /**
     * @param key an optional key.
     * @param absent returned when the key is absent.
     * @param min smallest accepted value.
     * @param max largest accepted value.
     * @return its value, {@code absent}, or {@code min} after reporting a problem.
     */
    public long optionalInteger(final String key, final long absent, final long min, final long max)
    {
        return has(key) ? Values.integer(value(key), path(key), problems, min, max) : absent;
    }

    /**
     * @param key an optional key.
     * @param absentNs returned when the key is absent.
     * @return its duration in nanoseconds, {@code absentNs}, or {@link Durations#INVALID} after reporting a problem.
     */
    public long optionalDurationNs(final String key, final long absentNs)
    {
        return has(key) ? Values.durationNs(value(key), path(key), problems) : absentNs;
    }

    /**
     * @param key an optional key.
     * @param keys every key the nested mapping may hold.
     * @return a reader of the nested mapping, or {@code null} when the key is absent.
     */
    public MappingReader optionalMapping(final String key, final List<String> keys)
    {
        return has(key) ? open(value(key), path(key), problems, keys) : null;
    }

    /**
     * @param key an optional key.
     * @return its list, or {@code null} when absent or not a list (which is reported).
     */
    public YamlSequence optionalSequence(final String key)
    {
        if (!has(key))
        {
            return null;
        }
        final YamlNode value = value(key);
        if (!(value instanceof YamlSequence))
        {
            problems.error(value, path(key), "expected a list, got " + value.describe());
            return null;
        }
        return (YamlSequence)value;
    }
}
