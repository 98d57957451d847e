package io.multifactor.envoy;

import io.envoyproxy.envoy.config.core.v3.HeaderMap;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;

import java.nio.charset.StandardCharsets;

/**
 * Reads one header of the map Envoy sends in {@code request_headers} / {@code response_headers}: keys arrive
 * lower-cased, values in {@code raw_value} (bytes) or, from older Envoys, in {@code value}.
 * <p>
 * This class is stateless and threadsafe.
 */
final class ExtProcHeaders
{
    /** Returned by {@link #status(HeaderMap)} when {@code :status} is absent or not a 3-digit number. */
    static final int NO_STATUS = 0;

    /** The value {@link #value} returns for a header longer than its limit; compare by identity. */
    static final String TOO_LONG = new String("<too long>");

    private ExtProcHeaders()
    {
    }

    /**
     * @param headers the header map of one message.
     * @param lowerCaseName the header's name, lower case.
     * @param maxBytes the longest value accepted.
     * @return the first value of that header; {@code null} when absent; {@link #TOO_LONG} (compare by identity) when its
     *     value is longer than {@code maxBytes}.
     */
    static String value(final HeaderMap headers, final String lowerCaseName, final int maxBytes)
    {
        final int count = headers.getHeadersCount();
        for (int i = 0; i < count; i++)
        {
            final HeaderValue header = headers.getHeaders(i);
            if (lowerCaseName.equals(header.getKey()))
            {
                if (!header.getRawValue().isEmpty())
                {
                    return header.getRawValue().size() > maxBytes ?
                        TOO_LONG : header.getRawValue().toString(StandardCharsets.UTF_8);
                }
                final String value = header.getValue();
                return value.length() > maxBytes ? TOO_LONG : value;
            }
        }
        return null;
    }

    /**
     * @param headers the response headers.
     * @return the {@code :status} as a number 100..999, or {@link #NO_STATUS}.
     */
    static int status(final HeaderMap headers)
    {
        final String status = value(headers, ":status", 3);
        if (status == null || status == TOO_LONG || status.length() != 3)
        {
            return NO_STATUS;
        }
        int code = 0;
        for (int i = 0; i < 3; i++)
        {
            final char c = status.charAt(i);
            if (c < '0' || c > '9')
            {
                return NO_STATUS;
            }
            code = code * 10 + (c - '0');
        }
        return code < 100 ? NO_STATUS : code;
    }
}
