package io.multifactor.config.yaml;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import org.yaml.snakeyaml.error.MarkedYAMLException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one YAML document into a tree of {@link YamlNode}s that remember the line and column of every key and value,
 * from Jackson's streaming {@link YAMLParser} events. Malformed input (bad UTF-8, bad YAML, aliases, several documents)
 * is refused with one located {@link ConfigProblem}.
 * <p>
 * This class is stateless and threadsafe; every call uses its own parser.
 */
public final class YamlTreeReader
{
    // Jackson's own limits sit above ours, so that ours, with their located messages, are always met first.
    private static final YAMLFactory FACTORY = YAMLFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder()
            .maxNameLength(4 * InputLimits.MAX_VALUE_CHARS)
            .maxStringLength(4 * InputLimits.MAX_FILE_BYTES)
            .maxNestingDepth(4 * InputLimits.MAX_DEPTH)
            .build())
        .build();

    /** What a path that is neither a regular file nor a directory is told. */
    public static final String NOT_REGULAR =
        "is not a regular file (a FIFO, socket or device): only a regular file, or a link to one, is read";

    private YamlTreeReader()
    {
    }

    /**
     * Reads a file. A file larger than {@link InputLimits#MAX_FILE_BYTES} is refused by its size, before it is read.
     *
     * @param path the file.
     * @return the root node of its single document.
     * @throws InvalidConfigurationException when the file does not exist, cannot be read, is too large or is not
     *     well-formed YAML.
     */
    public static YamlNode read(final Path path) throws InvalidConfigurationException
    {
        final String file = path.toString();
        final byte[] bytes;
        try
        {
            // Links followed: what is opened is what the attributes describe. Opening a FIFO (or a device) would
            // block until a writer comes, or read without end, so only a regular file is opened.
            final BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
            if (attributes.isDirectory())
            {
                throw single(file, 0, 0, "", "is a directory, not a file");
            }
            if (!attributes.isRegularFile())
            {
                throw single(file, 0, 0, "", NOT_REGULAR);
            }
            final long size = attributes.size();
            if (size > InputLimits.MAX_FILE_BYTES)
            {
                throw tooLarge(file, size);
            }
            bytes = readAtMost(path, InputLimits.MAX_FILE_BYTES + 1);
        }
        catch (final NoSuchFileException ex)
        {
            final Path parent = path.toAbsolutePath().getParent();
            throw single(file, 0, 0, "", parent != null && !Files.isDirectory(parent) ?
                "no such file (its directory " + parent + " does not exist either)" : "no such file");
        }
        catch (final AccessDeniedException ex)
        {
            throw single(file, 0, 0, "", "cannot read file: permission denied");
        }
        catch (final IOException | RuntimeException ex)
        {
            throw single(file, 0, 0, "", "cannot read file: " + describe(ex));
        }
        return read(file, bytes);
    }

    private static byte[] readAtMost(final Path path, final int max) throws IOException
    {
        try (InputStream in = Files.newInputStream(path))
        {
            return in.readNBytes(max);
        }
    }

    private static InvalidConfigurationException tooLarge(final String file, final long size)
    {
        return single(file, 0, 0, "", "file too large: " + InputLimits.grouped(size) + " bytes, the limit is " +
            InputLimits.grouped(InputLimits.MAX_FILE_BYTES) + " bytes (1 MiB)");
    }

    /**
     * Reads UTF-8 bytes.
     *
     * @param file name of the file, for messages.
     * @param utf8 the content.
     * @return the root node of its single document.
     * @throws InvalidConfigurationException when the content is not UTF-8 or not well-formed YAML.
     */
    public static YamlNode read(final String file, final byte[] utf8) throws InvalidConfigurationException
    {
        if (utf8.length > InputLimits.MAX_FILE_BYTES)
        {
            throw tooLarge(file, utf8.length);
        }
        return read(file, decode(file, utf8));
    }

    /**
     * Reads text.
     *
     * @param file name of the file, for messages.
     * @param text the content.
     * @return the root node of its single document.
     * @throws InvalidConfigurationException when the content is not well-formed YAML or holds no document.
     */
    public static YamlNode read(final String file, final String text) throws InvalidConfigurationException
    {
        if (text.length() > InputLimits.MAX_FILE_BYTES)
        {
            throw tooLarge(file, text.getBytes(StandardCharsets.UTF_8).length);
        }
        refuseLongLines(file, text);
        final Walk walk = new Walk();
        try (YAMLParser parser = FACTORY.createParser(text))
        {
            final JsonToken first = parser.nextToken();
            if (first == null)
            {
                throw single(file, 1, 1, "", "the file holds no YAML document");
            }
            final YamlNode root = walk.node(parser, first, "");
            final JsonToken after = parser.nextToken();
            if (after != null)
            {
                final JsonLocation at = parser.currentTokenLocation();
                throw single(file, at.getLineNr(), at.getColumnNr(), "",
                    "the file holds more than one YAML document; keep one");
            }
            return root;
        }
        catch (final JacksonException ex)
        {
            final MarkedYAMLException marked = markedCause(ex);
            if (marked != null && marked.getProblemMark() != null)
            {
                throw SyntaxMessage.of(marked).problem(file, walk.path);
            }
            final JsonLocation at = ex.getLocation();
            final int line = at != null && at.getLineNr() > 0 ? at.getLineNr() : walk.line;
            final int column = at != null && at.getColumnNr() > 0 ? at.getColumnNr() : walk.column;
            throw single(file, line, column, walk.path, "malformed YAML: " + clean(ex.getOriginalMessage()));
        }
        catch (final ConfigSyntaxException ex)
        {
            throw single(file, walk.line, walk.column, walk.path, ex.getMessage());
        }
        catch (final IOException | RuntimeException ex)
        {
            throw single(file, walk.line, walk.column, walk.path, "malformed YAML: " + describe(ex));
        }
    }

    /**
     * Refuses a line longer than {@link InputLimits#MAX_VALUE_CHARS} before parsing: the YAML scanner's time grows with
     * the square of a value's length, so a single line of megabytes would take seconds.
     */
    private static void refuseLongLines(final String file, final String text) throws InvalidConfigurationException
    {
        int line = 1;
        int lineStart = 0;
        final int length = text.length();
        for (int i = 0; i <= length; i++)
        {
            if (i == length || text.charAt(i) == '\n')
            {
                final int lineLength = i - lineStart;
                if (lineLength > InputLimits.MAX_VALUE_CHARS)
                {
                    throw single(file, line, InputLimits.MAX_VALUE_CHARS + 1, "", "line too long: " +
                        InputLimits.grouped(lineLength) + " characters, the limit for a line and for one value is " +
                        InputLimits.grouped(InputLimits.MAX_VALUE_CHARS));
                }
                line++;
                lineStart = i + 1;
            }
        }
    }

    private static MarkedYAMLException markedCause(final Throwable ex)
    {
        for (Throwable t = ex; t != null; t = t.getCause())
        {
            if (t instanceof MarkedYAMLException)
            {
                return (MarkedYAMLException)t;
            }
            if (t.getCause() == t)
            {
                break;
            }
        }
        return null;
    }

    private static String decode(final String file, final byte[] utf8) throws InvalidConfigurationException
    {
        final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
        final ByteBuffer in = ByteBuffer.wrap(utf8);
        final CharBuffer out = CharBuffer.allocate(utf8.length + 1);
        final CoderResult result = decoder.decode(in, out, true);
        if (result.isError())
        {
            final int offset = in.position();
            int line = 1;
            int lineStart = 0;
            for (int i = 0; i < offset; i++)
            {
                if (utf8[i] == '\n')
                {
                    line++;
                    lineStart = i + 1;
                }
            }
            throw single(file, line, offset - lineStart + 1, "",
                "not valid UTF-8: byte 0x" + Integer.toHexString(utf8[offset] & 0xFF) + " at offset " + offset);
        }
        try
        {
            decoder.flush(out);
        }
        catch (final RuntimeException ex)
        {
            throw single(file, 0, 0, "", "not valid UTF-8");
        }
        out.flip();
        return out.toString();
    }

    static InvalidConfigurationException single(
        final String file, final int line, final int column, final String path, final String message)
    {
        return new InvalidConfigurationException(
            List.of(new ConfigProblem(file, line, column, Excerpt.path(path), Excerpt.message(message))));
    }

    private static String describe(final Exception ex)
    {
        final String message = ex.getMessage();
        return message == null ? ex.getClass().getSimpleName() : clean(message);
    }

    /** Keeps the problem lines of a SnakeYAML message, dropping its own location lines and source excerpts. */
    static String clean(final String message)
    {
        if (message == null)
        {
            return "unreadable input";
        }
        final StringBuilder sb = new StringBuilder();
        for (final String raw : message.split("\n"))
        {
            final String line = raw.strip();
            if (line.isEmpty() || line.startsWith("in 'reader'") || line.startsWith("in 'string'") ||
                line.equals("^") || raw.startsWith("    ") || line.startsWith("at [Source"))
            {
                continue;
            }
            if (sb.length() > 0)
            {
                sb.append("; ");
            }
            sb.append(line);
        }
        return sb.length() == 0 ? message.strip() : sb.toString();
    }

    /** State of one walk: where it is, for errors the parser raises midway. Not threadsafe: one per read. */
    private static final class Walk
    {
        private String path = "";
        private int line;
        private int column;

        YamlNode node(final YAMLParser parser, final JsonToken token, final String nodePath) throws IOException
        {
            return node(parser, token, nodePath, 0);
        }

        private YamlNode node(final YAMLParser parser, final JsonToken token, final String nodePath, final int depth)
            throws IOException
        {
            final JsonLocation at = parser.currentTokenLocation();
            final int nodeLine = at.getLineNr();
            final int nodeColumn = at.getColumnNr();
            path = nodePath;
            line = nodeLine;
            column = nodeColumn;
            if (parser.isCurrentAlias())
            {
                throw new ConfigSyntaxException("YAML aliases are not supported: *" + Excerpt.value(parser.getText()));
            }
            switch (token)
            {
                case START_OBJECT:
                case START_ARRAY:
                    if (depth >= InputLimits.MAX_DEPTH)
                    {
                        throw new ConfigSyntaxException("nesting too deep: more than " + InputLimits.MAX_DEPTH +
                            " levels of lists and mappings");
                    }
                    return token == JsonToken.START_OBJECT ?
                        mapping(parser, nodePath, nodeLine, nodeColumn, depth) :
                        sequence(parser, nodePath, nodeLine, nodeColumn, depth);
                default:
                    final YamlScalar scalar = scalar(parser, token, nodeLine, nodeColumn);
                    if (scalar.text().length() > InputLimits.MAX_VALUE_CHARS)
                    {
                        throw new ConfigSyntaxException("value too long: " +
                            InputLimits.grouped(scalar.text().length()) + " characters, the limit is " +
                            InputLimits.grouped(InputLimits.MAX_VALUE_CHARS));
                    }
                    return scalar;
            }
        }

        private YamlMapping mapping(final YAMLParser parser, final String nodePath, final int nodeLine,
            final int nodeColumn, final int depth) throws IOException
        {
            final List<YamlEntry> entries = new ArrayList<>();
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME)
            {
                final JsonLocation keyAt = parser.currentTokenLocation();
                final String key = parser.currentName();
                final String childPath = nodePath.isEmpty() ? key : nodePath + '.' + key;
                path = childPath;
                line = keyAt.getLineNr();
                column = keyAt.getColumnNr();
                if (key.length() > InputLimits.MAX_VALUE_CHARS)
                {
                    throw new ConfigSyntaxException("key too long: " + InputLimits.grouped(key.length()) +
                        " characters, the limit is " + InputLimits.grouped(InputLimits.MAX_VALUE_CHARS));
                }
                final YamlNode value = node(parser, parser.nextToken(), childPath, depth + 1);
                entries.add(new YamlEntry(key, keyAt.getLineNr(), keyAt.getColumnNr(), value));
            }
            if (token != JsonToken.END_OBJECT)
            {
                throw new ConfigSyntaxException("malformed YAML: unexpected " + token + " in a mapping");
            }
            return new YamlMapping(nodeLine, nodeColumn, entries);
        }

        private YamlSequence sequence(final YAMLParser parser, final String nodePath, final int nodeLine,
            final int nodeColumn, final int depth) throws IOException
        {
            final List<YamlNode> items = new ArrayList<>();
            JsonToken token;
            while ((token = parser.nextToken()) != JsonToken.END_ARRAY)
            {
                if (token == null)
                {
                    throw new ConfigSyntaxException("malformed YAML: unterminated list");
                }
                items.add(node(parser, token, nodePath + '[' + items.size() + ']', depth + 1));
            }
            return new YamlSequence(nodeLine, nodeColumn, items);
        }

        private static YamlScalar scalar(final YAMLParser parser, final JsonToken token, final int nodeLine,
            final int nodeColumn) throws IOException
        {
            final String text = parser.getText();
            switch (token)
            {
                case VALUE_NUMBER_INT:
                    return integer(parser, text, nodeLine, nodeColumn);
                case VALUE_NUMBER_FLOAT:
                    return new YamlScalar(nodeLine, nodeColumn, YamlScalar.Kind.FLOAT, text, parseFloat(parser, text),
                        0L, false);
                case VALUE_TRUE:
                case VALUE_FALSE:
                    return new YamlScalar(nodeLine, nodeColumn, YamlScalar.Kind.BOOLEAN, text, Double.NaN, 0L, false);
                case VALUE_NULL:
                    return new YamlScalar(nodeLine, nodeColumn, YamlScalar.Kind.NULL, text == null ? "" : text,
                        Double.NaN, 0L, false);
                default:
                    return new YamlScalar(nodeLine, nodeColumn, YamlScalar.Kind.STRING, text == null ? "" : text,
                        Double.NaN, 0L, false);
            }
        }

        private static YamlScalar integer(final YAMLParser parser, final String text, final int nodeLine,
            final int nodeColumn) throws IOException
        {
            try
            {
                if (parser.getNumberType() == YAMLParser.NumberType.BIG_INTEGER)
                {
                    return new YamlScalar(nodeLine, nodeColumn, YamlScalar.Kind.INTEGER, text,
                        parser.getBigIntegerValue().doubleValue(), 0L, false);
                }
                final long value = parser.getLongValue();
                return new YamlScalar(nodeLine, nodeColumn, YamlScalar.Kind.INTEGER, text, value, value, true);
            }
            catch (final JacksonException | NumberFormatException ex)
            {
                // The resolver typed it as an integer but it does not parse as one: keep it as text.
                return new YamlScalar(nodeLine, nodeColumn, YamlScalar.Kind.STRING, text, Double.NaN, 0L, false);
            }
        }

        private static double parseFloat(final YAMLParser parser, final String text) throws IOException
        {
            final String lower = text.toLowerCase(java.util.Locale.ROOT);
            if (lower.endsWith(".nan"))
            {
                return Double.NaN;
            }
            if (lower.endsWith(".inf"))
            {
                return lower.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            }
            try
            {
                return parser.getDoubleValue();
            }
            catch (final JacksonException | NumberFormatException ex)
            {
                try
                {
                    return Double.parseDouble(text.replace("_", ""));
                }
                catch (final NumberFormatException again)
                {
                    return Double.NaN;
                }
            }
        }
    }
}
