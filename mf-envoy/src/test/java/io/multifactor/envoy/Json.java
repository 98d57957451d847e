package io.multifactor.envoy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/** Reads one value out of a JSON document in tests; the whole document must parse. Stateless and threadsafe. */
final class Json
{
    private static final JsonFactory FACTORY = new JsonFactory();

    private Json()
    {
    }

    /**
     * @param json a JSON document.
     * @param path object keys, or array indexes as digits, outermost first.
     * @return the scalar at that path as text ({@code null} for JSON null), {@code "[n]"} for an array of n elements,
     *     {@code "{}"} for an object; an {@link AssertionError} when the path is absent.
     */
    static String text(final String json, final String... path) throws IOException
    {
        try (JsonParser parser = FACTORY.createParser(json))
        {
            parser.nextToken();
            for (final String step : path)
            {
                if (!enter(parser, step))
                {
                    throw new AssertionError("no " + String.join(".", path) + " in " + json);
                }
            }
            final JsonToken token = parser.currentToken();
            final String value;
            if (token == JsonToken.START_ARRAY)
            {
                int count = 0;
                while (parser.nextToken() != JsonToken.END_ARRAY)
                {
                    parser.skipChildren();
                    count++;
                }
                value = "[" + count + "]";
            }
            else if (token == JsonToken.START_OBJECT)
            {
                parser.skipChildren();
                value = "{}";
            }
            else
            {
                value = token == JsonToken.VALUE_NULL ? null : parser.getText();
            }
            while (parser.nextToken() != null)
            {
                // the rest must parse too
            }
            return value;
        }
    }

    private static boolean enter(final JsonParser parser, final String step) throws IOException
    {
        if (parser.currentToken() == JsonToken.START_OBJECT)
        {
            while (parser.nextToken() == JsonToken.FIELD_NAME)
            {
                final String name = parser.currentName();
                parser.nextToken();
                if (name.equals(step))
                {
                    return true;
                }
                parser.skipChildren();
            }
            return false;
        }
        if (parser.currentToken() == JsonToken.START_ARRAY && !step.isEmpty() && Character.isDigit(step.charAt(0)))
        {
            final int index = Integer.parseInt(step);
            for (int i = 0; parser.nextToken() != JsonToken.END_ARRAY; i++)
            {
                if (i == index)
                {
                    return true;
                }
                parser.skipChildren();
            }
        }
        return false;
    }
}
