package io.multifactor.serving;

import java.util.Locale;

/**
 * JSON text helpers: string escaping and number formatting as the explain JSON and error bodies write them.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class JsonText
{
    private JsonText()
    {
    }

    /**
     * @param value a string or {@code null}.
     * @return its JSON text, quoted and escaped, or {@code null}.
     */
    public static String string(final String value)
    {
        if (value == null)
        {
            return "null";
        }
        final StringBuilder sb = new StringBuilder(value.length() + 2).append('"');
        appendEscaped(sb, value);
        return sb.append('"').toString();
    }

    /**
     * @param value a number, NaN when missing.
     * @return its JSON text: a double such as {@code 51.0}, or {@code null}.
     */
    public static String number(final double value)
    {
        return Double.isNaN(value) || Double.isInfinite(value) ? "null" : Double.toString(value);
    }

    /**
     * Appends {@code value}'s characters escaped for a JSON string (without the quotes).
     *
     * @param sb where to append.
     * @param value the text.
     */
    public static void appendEscaped(final StringBuilder sb, final String value)
    {
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            switch (c)
            {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20 || c == '\u2028' || c == '\u2029')
                    {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        sb.append(c);
                    }
            }
        }
    }

    /**
     * @param type the error's type, such as {@code invalid_request_error}.
     * @param message what went wrong.
     * @return an OpenAI-style error body: {@code {"error": {"message": ..., "type": ...}}}.
     */
    public static String error(final String type, final String message)
    {
        return "{\"error\":{\"message\":" + string(message) + ",\"type\":" + string(type) + "}}";
    }

    /**
     * @param type the error's type, such as {@code invalid_request_error}.
     * @param code the error's stable code, such as {@code no_eligible_model}.
     * @param message what went wrong.
     * @return an OpenAI-shaped error body: {@code {"error": {"message": ..., "type": ..., "param": null, "code": ...}}}.
     */
    public static String error(final String type, final String code, final String message)
    {
        return "{\"error\":{\"message\":" + string(message) + ",\"type\":" + string(type) + ",\"param\":null,\"code\":" +
            string(code) + "}}";
    }
}
