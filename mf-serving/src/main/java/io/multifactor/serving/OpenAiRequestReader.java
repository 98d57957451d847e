package io.multifactor.serving;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.multifactor.api.Capability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Reads an OpenAI request body (chat or text completion, Responses, embeddings) once, with Jackson's streaming parser (no tree), into an
 * {@link OpenAiRequest}, and writes the body again with {@code model} replaced, every other byte kept as sent.
 * Untrusted input: a body over {@link #MAX_BODY_BYTES}, bad JSON, a non-object, a field of the wrong type give a result
 * code and a message, never an exception; nesting and string sizes are bounded by the parser's constraints.
 * <p>
 * This class is threadsafe and can be shared (its Jackson factory is).
 */
public final class OpenAiRequestReader
{
    /** Largest body accepted: 8 MiB. */
    public static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

    /** The body was read. */
    public static final int OK = 0;
    /** The body is larger than {@link #MAX_BODY_BYTES}. */
    public static final int TOO_LARGE = 1;
    /** The body is not JSON (or has content after the object). */
    public static final int NOT_JSON = 2;
    /** The body is JSON but not an object. */
    public static final int NOT_OBJECT = 3;
    /** A field the router reads has the wrong type or value. */
    public static final int BAD_FIELD = 4;

    private static final int MAX_NESTING = 64;

    private final JsonFactory json = JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder()
            .maxNestingDepth(MAX_NESTING)
            .maxDocumentLength(MAX_BODY_BYTES)
            .maxStringLength(MAX_BODY_BYTES)
            .maxNumberLength(100)
            .build())
        .build();

    /**
     * @param body the body's bytes.
     * @param length how many of them (at most {@code body.length}).
     * @param out the caller's result, cleared first.
     * @return {@link #OK}, or a refusal code with {@link OpenAiRequest#error()} set.
     */
    public int read(final byte[] body, final int length, final OpenAiRequest out)
    {
        out.clear();
        if (length > MAX_BODY_BYTES)
        {
            out.error = "request body is larger than 8 MiB (" + length + " bytes)";
            return TOO_LARGE;
        }
        try (JsonParser parser = json.createParser(body, 0, length))
        {
            final JsonToken first = parser.nextToken();
            if (first == null)
            {
                out.error = "request body is empty: expected a JSON object";
                return NOT_JSON;
            }
            if (first != JsonToken.START_OBJECT)
            {
                out.error = "request body must be a JSON object, got " + describe(first);
                return NOT_OBJECT;
            }
            out.objectStart = (int)parser.currentTokenLocation().getByteOffset();
            long maxTokens = -1;
            long maxCompletionTokens = -1;
            final PromptBlocks prompt = out.capturePrompt ? out.prompt : null;
            int inputStart = -1;
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME)
            {
                final String field = parser.currentName();
                final JsonToken value = parser.nextToken();
                switch (field)
                {
                    case "model":
                        if (value != JsonToken.VALUE_STRING)
                        {
                            return bad(out, "\"model\" must be a string, got " + describe(value));
                        }
                        out.modelStart = (int)parser.currentTokenLocation().getByteOffset();
                        out.model = parser.getText();
                        out.modelEnd = (int)parser.currentLocation().getByteOffset();
                        break;
                    case "stream":
                        if (value != JsonToken.VALUE_TRUE && value != JsonToken.VALUE_FALSE)
                        {
                            return bad(out, "\"stream\" must be true or false, got " + describe(value));
                        }
                        out.stream = value == JsonToken.VALUE_TRUE;
                        break;
                    case "max_tokens":
                        maxTokens = tokenCount(parser, value, field, out);
                        if (maxTokens == -2)
                        {
                            return BAD_FIELD;
                        }
                        break;
                    case "tools":
                    case "functions":
                        out.needs |= value == JsonToken.VALUE_NULL ? 0 : Capability.TOOLS;
                        parser.skipChildren();
                        break;
                    case "response_format":
                        out.needs |= NeedsReader.responseFormat(parser, value);
                        break;
                    case "max_output_tokens":
                        // The Responses API's name for the output bound: read as max_completion_tokens.
                    case "max_completion_tokens":
                        maxCompletionTokens = tokenCount(parser, value, field, out);
                        if (maxCompletionTokens == -2)
                        {
                            return BAD_FIELD;
                        }
                        break;
                    case "messages":
                        out.promptBytes += messagesBytes(parser, value, out, prompt);
                        break;
                    case "prompt":
                        out.promptBytes += textBytes(parser, value, prompt);
                        break;
                    case "instructions":
                        if (prompt == null || value != JsonToken.VALUE_STRING)
                        {
                            parser.skipChildren();
                            break;
                        }
                        final int at = prompt.length();
                        textBytes(parser, value, prompt);
                        if (inputStart >= 0)
                        {
                            // The prompt is instructions, then input, whatever order the body has them in.
                            prompt.moveTailTo(at, inputStart);
                        }
                        break;
                    case "input":
                        // A string, or a list of strings and items whose content (a string or parts) or text counts.
                        inputStart = prompt == null ? -1 : prompt.length();
                        out.promptBytes += textBytes(parser, value, prompt);
                        break;
                    default:
                        parser.skipChildren();
                }
            }
            if (token != JsonToken.END_OBJECT || parser.nextToken() != null)
            {
                out.clear();
                out.error = "request body is not one JSON object";
                return NOT_JSON;
            }
            out.maxOutputTokens = maxCompletionTokens >= 0 ? maxCompletionTokens : maxTokens;
            return OK;
        }
        catch (final IOException | RuntimeException ex)
        {
            // Jackson reports malformed input (and broken constraints) as exceptions; here they are a result code.
            // Their messages name the parser's classes and settings: the client is told where, not how.
            out.clear();
            out.error = notJson(ex);
            return NOT_JSON;
        }
    }

    /** @return what a client is told of a body the parser refused: the limit it broke, or where it stopped. */
    private static String notJson(final Exception ex)
    {
        if (ex instanceof StreamConstraintsException)
        {
            return "request body is not valid JSON: it breaks a limit (nesting deeper than " + MAX_NESTING +
                ", or a number longer than 100 digits)";
        }
        if (ex instanceof JsonProcessingException && ((JsonProcessingException)ex).getLocation() != null)
        {
            final JsonLocation at = ((JsonProcessingException)ex).getLocation();
            return "request body is not valid JSON at line " + at.getLineNr() + ", column " + at.getColumnNr();
        }
        return "request body is not valid JSON";
    }

    /**
     * Writes the body again with the top-level {@code model} value replaced by {@code modelId} (inserted first when
     * the body had none); every other byte is kept.
     *
     * @param body the body read by {@link #read}.
     * @param length its length.
     * @param parsed what {@link #read} returned {@link #OK} for.
     * @param modelId the id to send (a provider model id).
     * @return the new body.
     */
    public static byte[] rewriteModel(final byte[] body, final int length, final OpenAiRequest parsed, final String modelId)
    {
        final byte[] quoted = quote(modelId);
        if (parsed.modelStart == OpenAiRequest.NO_MODEL)
        {
            final int at = parsed.objectStart + 1;
            final byte[] field = "\"model\":".getBytes(StandardCharsets.US_ASCII);
            final boolean empty = isEmptyObject(body, at, length);
            final byte[] out = new byte[length + field.length + quoted.length + (empty ? 0 : 1)];
            System.arraycopy(body, 0, out, 0, at);
            System.arraycopy(field, 0, out, at, field.length);
            System.arraycopy(quoted, 0, out, at + field.length, quoted.length);
            int pos = at + field.length + quoted.length;
            if (!empty)
            {
                out[pos++] = ',';
            }
            System.arraycopy(body, at, out, pos, length - at);
            return out;
        }
        final int start = parsed.modelStart;
        final int end = parsed.modelEnd;
        final byte[] out = new byte[length - (end - start) + quoted.length];
        System.arraycopy(body, 0, out, 0, start);
        System.arraycopy(quoted, 0, out, start, quoted.length);
        System.arraycopy(body, end, out, start + quoted.length, length - end);
        return out;
    }

    private static boolean isEmptyObject(final byte[] body, final int from, final int length)
    {
        for (int i = from; i < length; i++)
        {
            final byte b = body[i];
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r')
            {
                return b == '}';
            }
        }
        return true;
    }

    /** @return {@code value} as a JSON string literal in UTF-8. */
    static byte[] quote(final String value)
    {
        final StringBuilder sb = new StringBuilder(value.length() + 2).append('"');
        JsonText.appendEscaped(sb, value);
        return sb.append('"').toString().getBytes(StandardCharsets.UTF_8);
    }

    private static int bad(final OpenAiRequest out, final String message)
    {
        out.clear();
        out.error = message;
        return BAD_FIELD;
    }

    /** @return the count, -1 for null, or -2 after setting the error. */
    private static long tokenCount(final JsonParser parser, final JsonToken value, final String field, final OpenAiRequest out)
        throws IOException
    {
        if (value == JsonToken.VALUE_NULL)
        {
            return -1;
        }
        if (value != JsonToken.VALUE_NUMBER_INT || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER ||
            parser.getLongValue() < 0)
        {
            bad(out, '"' + field + "\" must be an integer >= 0, got " + describe(value));
            return -2;
        }
        return parser.getLongValue();
    }

    /**
     * Sums the text of every message's {@code content}: a string, or a list of parts with {@code text} (noting the
     * request's needs, {@link NeedsReader}); and writes each message as role, 0, content text, 0 into the prompt when
     * it is captured.
     */
    private static long messagesBytes(final JsonParser parser, final JsonToken value, final OpenAiRequest out,
        final PromptBlocks promptOrNull)
        throws IOException
    {
        if (value != JsonToken.START_ARRAY)
        {
            parser.skipChildren();
            return 0;
        }
        long bytes = 0;
        JsonToken message;
        while ((message = parser.nextToken()) != JsonToken.END_ARRAY && message != null)
        {
            if (message != JsonToken.START_OBJECT)
            {
                parser.skipChildren();
                continue;
            }
            final int start = promptOrNull == null ? 0 : promptOrNull.length();
            boolean roleWritten = false;
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                final JsonToken field = parser.nextToken();
                if ("content".equals(name))
                {
                    if (field == JsonToken.START_ARRAY)
                    {
                        bytes += NeedsReader.contentParts(parser, out, promptOrNull);
                        continue;
                    }
                    bytes += textBytes(parser, field, promptOrNull);
                }
                else if (promptOrNull != null && !roleWritten && "role".equals(name) && field == JsonToken.VALUE_STRING)
                {
                    final int at = promptOrNull.length();
                    textBytes(parser, field, promptOrNull);
                    promptOrNull.appendByte(0);
                    promptOrNull.moveTailTo(at, start);
                    roleWritten = true;
                }
                else
                {
                    parser.skipChildren();
                }
            }
            if (promptOrNull != null)
            {
                if (!roleWritten)
                {
                    final int at = promptOrNull.length();
                    promptOrNull.appendByte(0);
                    promptOrNull.moveTailTo(at, start);
                }
                promptOrNull.appendByte(0);
            }
        }
        return bytes;
    }

    /**
     * @return the UTF-8 bytes of a string, or of the strings (and parts' {@code text}, items' {@code content}) of a
     *     list; 4 per token id of a pre-tokenized prompt.
     */
    static long textBytes(final JsonParser parser, final JsonToken value, final PromptBlocks promptOrNull)
        throws IOException
    {
        if (value == JsonToken.VALUE_STRING)
        {
            final char[] chars = parser.getTextCharacters();
            final int offset = parser.getTextOffset();
            final int length = parser.getTextLength();
            final long bytes = utf8Length(chars, offset, length);
            if (promptOrNull != null)
            {
                promptOrNull.appendUtf8(chars, offset, length, bytes);
            }
            return bytes;
        }
        if (value == JsonToken.VALUE_NUMBER_INT)
        {
            if (promptOrNull != null)
            {
                promptOrNull.appendTokenId(parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER ?
                    -1 : parser.getLongValue());
            }
            return 4;
        }
        if (value == JsonToken.START_ARRAY)
        {
            long bytes = 0;
            JsonToken item;
            while ((item = parser.nextToken()) != JsonToken.END_ARRAY && item != null)
            {
                bytes += textBytes(parser, item, promptOrNull);
            }
            return bytes;
        }
        if (value == JsonToken.START_OBJECT)
        {
            long bytes = 0;
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                final JsonToken field = parser.nextToken();
                if ("text".equals(name) && field == JsonToken.VALUE_STRING || "content".equals(name))
                {
                    // A part's text; or a Responses input item's content (a string or a list of parts).
                    bytes += textBytes(parser, field, promptOrNull);
                }
                else
                {
                    parser.skipChildren();
                }
            }
            return bytes;
        }
        return 0;
    }

    /** @return the UTF-8 byte count of the characters (a lone surrogate counts 3, as its replacement would). */
    static long utf8Length(final char[] chars, final int offset, final int length)
    {
        long bytes = 0;
        final int end = offset + length;
        for (int i = offset; i < end; i++)
        {
            final char c = chars[i];
            if (c < 0x80)
            {
                bytes += 1;
            }
            else if (c < 0x800)
            {
                bytes += 2;
            }
            else if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(chars[i + 1]))
            {
                bytes += 4;
                i++;
            }
            else
            {
                bytes += 3;
            }
        }
        return bytes;
    }

    private static String describe(final JsonToken token)
    {
        if (token == null)
        {
            return "nothing";
        }
        switch (token)
        {
            case START_ARRAY:
                return "a list";
            case START_OBJECT:
                return "an object";
            case VALUE_STRING:
                return "a string";
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return "a number";
            case VALUE_TRUE:
            case VALUE_FALSE:
                return "a boolean";
            case VALUE_NULL:
                return "null";
            default:
                return token.toString();
        }
    }
}
