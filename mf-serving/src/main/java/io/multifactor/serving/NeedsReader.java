package io.multifactor.serving;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.multifactor.api.Capability;

import java.io.IOException;

/**
 * The parts of {@link OpenAiRequestReader}'s one parse that find what a request needs of a model (section
 * "Eligibility, request SLOs and shedding" of docs/semantics.md): an {@code image_url} content part (vision) while the
 * message's content is measured, and {@code response_format.type: json_schema}. {@code tools} and {@code functions}
 * are noted by the reader itself.
 * <p>
 * This class is stateless and threadsafe.
 */
final class NeedsReader
{
    private NeedsReader()
    {
    }

    /**
     * Measures a message's content given as a list of parts, as the reader measures text (each part's {@code text}),
     * noting vision when a part is an image ({@code "type": "image_url"} or an {@code image_url} member).
     *
     * @param parser positioned on the list's {@code START_ARRAY}.
     * @param out where the need is noted.
     * @param promptOrNull where the parts' text is written when the prompt is captured, or null.
     * @return the UTF-8 bytes of the parts' text.
     */
    static long contentParts(final JsonParser parser, final OpenAiRequest out, final PromptBlocks promptOrNull)
        throws IOException
    {
        long bytes = 0;
        JsonToken item;
        while ((item = parser.nextToken()) != JsonToken.END_ARRAY && item != null)
        {
            if (item != JsonToken.START_OBJECT)
            {
                bytes += OpenAiRequestReader.textBytes(parser, item, promptOrNull);
                continue;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                final JsonToken field = parser.nextToken();
                if ("text".equals(name) && field == JsonToken.VALUE_STRING)
                {
                    bytes += OpenAiRequestReader.textBytes(parser, field, promptOrNull);
                    continue;
                }
                if ("image_url".equals(name) && field != JsonToken.VALUE_NULL ||
                    "type".equals(name) && field == JsonToken.VALUE_STRING && "image_url".equals(parser.getText()))
                {
                    out.needs |= Capability.VISION;
                }
                parser.skipChildren();
            }
        }
        return bytes;
    }

    /**
     * @param parser positioned on the value of {@code response_format}.
     * @param value that value's token.
     * @return {@link Capability#JSON_SCHEMA} when it is an object whose {@code type} is {@code json_schema}, else 0.
     */
    static int responseFormat(final JsonParser parser, final JsonToken value) throws IOException
    {
        if (value != JsonToken.START_OBJECT)
        {
            parser.skipChildren();
            return 0;
        }
        int needs = 0;
        while (parser.nextToken() == JsonToken.FIELD_NAME)
        {
            final String name = parser.currentName();
            final JsonToken field = parser.nextToken();
            if ("type".equals(name) && field == JsonToken.VALUE_STRING && "json_schema".equals(parser.getText()))
            {
                needs = Capability.JSON_SCHEMA;
            }
            parser.skipChildren();
        }
        return needs;
    }
}
