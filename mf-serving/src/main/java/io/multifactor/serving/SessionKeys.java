package io.multifactor.serving;

/**
 * The one home of how a routing server turns a request's session header into the 64-bit session key of
 * {@code Request.session(long)}: the {@link ServingHeaders#SESSION_ID} header ({@code x-session-id}), else llm-d's
 * {@link ServingHeaders#SESSION_TOKEN} ({@code x-session-token}); an empty value counts as absent. The key is the
 * 64-bit FNV-1a hash of the value's UTF-8 bytes (offset basis {@code 0xcbf29ce484222325}, prime
 * {@code 0x100000001b3}), so every replica, restart and language derives the same key from the same header. The
 * gateway, the ext_proc service and the framework integrations all use it.
 * <p>
 * This class is stateless and threadsafe; its methods allocate nothing.
 */
public final class SessionKeys
{
    /** The longest session header value a server accepts, in bytes (a longer one is refused with 400). */
    public static final int MAX_HEADER_BYTES = 4096;

    /** FNV-1a 64's offset basis. */
    static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;

    /** FNV-1a 64's prime. */
    static final long FNV_PRIME = 0x100000001b3L;

    private SessionKeys()
    {
    }

    /**
     * @param sessionIdOrNull the {@code x-session-id} header's value, or {@code null}.
     * @param sessionTokenOrNull the {@code x-session-token} header's value, or {@code null}.
     * @return the value that names the session ({@code x-session-id} first), or {@code null} when neither is set.
     */
    public static String header(final String sessionIdOrNull, final String sessionTokenOrNull)
    {
        if (sessionIdOrNull != null && !sessionIdOrNull.isEmpty())
        {
            return sessionIdOrNull;
        }
        return sessionTokenOrNull != null && !sessionTokenOrNull.isEmpty() ? sessionTokenOrNull : null;
    }

    /**
     * The session key of a header value: FNV-1a 64 over its UTF-8 bytes, encoded on the fly (an unpaired surrogate
     * counts as {@code '?'}, as Java's encoder writes it).
     *
     * @param value the header's value.
     * @return the key.
     */
    public static long key(final CharSequence value)
    {
        long hash = FNV_OFFSET_BASIS;
        final int length = value.length();
        for (int i = 0; i < length; i++)
        {
            final char c = value.charAt(i);
            if (c < 0x80)
            {
                hash = mix(hash, c);
            }
            else if (c < 0x800)
            {
                hash = mix(mix(hash, 0xC0 | (c >>> 6)), 0x80 | (c & 0x3F));
            }
            else if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(value.charAt(i + 1)))
            {
                final int cp = Character.toCodePoint(c, value.charAt(++i));
                hash = mix(mix(mix(mix(hash, 0xF0 | (cp >>> 18)), 0x80 | ((cp >>> 12) & 0x3F)),
                    0x80 | ((cp >>> 6) & 0x3F)), 0x80 | (cp & 0x3F));
            }
            else if (Character.isSurrogate(c))
            {
                hash = mix(hash, '?');
            }
            else
            {
                hash = mix(mix(mix(hash, 0xE0 | (c >>> 12)), 0x80 | ((c >>> 6) & 0x3F)), 0x80 | (c & 0x3F));
            }
        }
        return hash;
    }

    /**
     * The session key of a header value given as its UTF-8 bytes (as Envoy sends it).
     *
     * @param utf8 the bytes.
     * @param offset the first byte.
     * @param length the number of bytes.
     * @return the key: {@link #key(CharSequence)} of the decoded value.
     */
    public static long key(final byte[] utf8, final int offset, final int length)
    {
        long hash = FNV_OFFSET_BASIS;
        for (int i = offset; i < offset + length; i++)
        {
            hash = mix(hash, utf8[i] & 0xFF);
        }
        return hash;
    }

    private static long mix(final long hash, final int octet)
    {
        return (hash ^ octet) * FNV_PRIME;
    }
}
