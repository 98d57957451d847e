package io.multifactor.gateway;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * The client keys a gateway accepts ({@code --api-keys FILE} or {@code MF_API_KEYS}), kept only as their SHA-256
 * digests: each entry is a key (or {@code sha256:HEX}, its digest) with an optional {@code decisions=a,b} that limits
 * it to those decisions. A request's {@code Authorization: Bearer KEY} is hashed and compared with every digest in
 * constant time ({@link MessageDigest#isEqual}, no early exit), so the answer's timing says nothing about how much of a
 * key matched. A key never leaves this class: only its id (the first 8 hex digits of its digest) is logged.
 * <p>
 * Syntax, one entry per line: {@code KEY} or {@code sha256:HEX}, then optionally a space and {@code decisions=a,b};
 * blank lines and lines starting with {@code #} are ignored. The environment variable takes the same lines, or, on one
 * line, entries separated by commas with each entry's decisions separated by {@code |}.
 * <p>
 * Instances are immutable and threadsafe; {@link #find} takes the caller's own {@link MessageDigest}.
 */
public final class ApiKeys
{
    /** What {@link #find} answers for a missing, malformed or unknown key. */
    public static final int NO_KEY = -1;

    private static final String BEARER = "bearer ";
    private static final String SHA256 = "sha256:";
    private static final String DECISIONS = "decisions=";

    private final byte[][] digests;
    private final String[][] decisionsOrNull;
    private final String[] ids;

    private ApiKeys(final byte[][] digests, final String[][] decisionsOrNull, final String[] ids)
    {
        this.digests = digests;
        this.decisionsOrNull = decisionsOrNull;
        this.ids = ids;
    }

    /**
     * Reads the keys of a file's text: one entry per line.
     *
     * @param text the file's content.
     * @param source the file's name, for errors.
     * @return the keys.
     * @throws IllegalArgumentException naming the file and line of the first bad entry, never the key itself.
     */
    public static ApiKeys parseFile(final String text, final String source)
    {
        return parse(text.split("\r?\n", -1), source, false);
    }

    /**
     * Reads the keys of the environment variable's value: with a newline in it, one entry per line exactly as in a
     * file; without one, entries separated by commas and each entry's decisions by {@code |}.
     *
     * @param value the variable's value.
     * @param source the variable's name, for errors.
     * @return the keys.
     * @throws IllegalArgumentException naming the variable and entry of the first bad one, never the key itself.
     */
    public static ApiKeys parseVariable(final String value, final String source)
    {
        final boolean lines = value.indexOf('\n') >= 0;
        return parse(value.split(lines ? "\r?\n" : ",", -1), source, !lines);
    }

    private static ApiKeys parse(final String[] lines, final String source, final boolean variable)
    {
        final List<byte[]> digests = new ArrayList<>();
        final List<String[]> decisions = new ArrayList<>();
        final MessageDigest sha256 = sha256();
        for (int i = 0; i < lines.length; i++)
        {
            final String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#"))
            {
                continue;
            }
            final String where = source + (variable ? ": entry " : ":") + (i + 1);
            final int space = firstSpace(line);
            final String key = space < 0 ? line : line.substring(0, space);
            final String rest = space < 0 ? "" : line.substring(space).strip();
            final byte[] digest;
            if (key.regionMatches(true, 0, SHA256, 0, SHA256.length()))
            {
                digest = hex(key.substring(SHA256.length()));
                if (digest == null)
                {
                    throw new IllegalArgumentException(where + ": sha256: takes 64 hex digits");
                }
            }
            else
            {
                digest = sha256.digest(key.getBytes(StandardCharsets.UTF_8));
            }
            String[] allowed = null;
            if (!rest.isEmpty())
            {
                if (!rest.startsWith(DECISIONS))
                {
                    throw new IllegalArgumentException(where + ": after the key, only decisions=a,b may follow");
                }
                allowed = rest.substring(DECISIONS.length()).split(variable ? "\\|" : ",", -1);
                for (int d = 0; d < allowed.length; d++)
                {
                    allowed[d] = allowed[d].strip();
                    if (allowed[d].isEmpty() || firstSpace(allowed[d]) >= 0)
                    {
                        throw new IllegalArgumentException(where + ": decisions= takes decision names separated by " +
                            (variable ? "|" : "commas") + ", none empty");
                    }
                }
            }
            digests.add(digest);
            decisions.add(allowed);
        }
        if (digests.isEmpty())
        {
            throw new IllegalArgumentException(source + ": no key (every line is blank or a comment)");
        }
        final String[] ids = new String[digests.size()];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = id(digests.get(i));
        }
        return new ApiKeys(digests.toArray(new byte[0][]), decisions.toArray(new String[0][]), ids);
    }

    /** @return a new SHA-256 digest, for one thread's {@link #find} calls. */
    public static MessageDigest sha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("the JDK has no SHA-256", ex);
        }
    }

    /**
     * @param authorizationOrNull the request's {@code Authorization} header.
     * @param sha256 the calling thread's digest (see {@link #sha256()}).
     * @return the index of the key it carries as {@code Bearer KEY}, or {@link #NO_KEY}.
     */
    public int find(final String authorizationOrNull, final MessageDigest sha256)
    {
        if (authorizationOrNull == null || authorizationOrNull.length() <= BEARER.length() ||
            !authorizationOrNull.regionMatches(true, 0, BEARER, 0, BEARER.length()))
        {
            return NO_KEY;
        }
        final String key = authorizationOrNull.substring(BEARER.length()).strip();
        sha256.reset();
        final byte[] digest = sha256.digest(key.getBytes(StandardCharsets.UTF_8));
        int found = NO_KEY;
        for (int i = 0; i < digests.length; i++)
        {
            // Every digest is compared, whether an earlier one matched or not: the time taken does not depend on it.
            if (MessageDigest.isEqual(digests[i], digest) && found == NO_KEY)
            {
                found = i;
            }
        }
        return found;
    }

    /**
     * The check {@code /v1/models} and every request with a decision make.
     *
     * @param key an index {@link #find} answered.
     * @param decision a decision's name.
     * @return whether that key may use that decision.
     */
    public boolean allows(final int key, final String decision)
    {
        final String[] allowed = decisionsOrNull[key];
        if (allowed == null)
        {
            return true;
        }
        for (final String name : allowed)
        {
            if (name.equals(decision))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param key an index {@link #find} answered.
     * @return the key's id, the first 8 hex digits of its SHA-256: what logs may show.
     */
    public String id(final int key)
    {
        return ids[key];
    }

    /** @return how many keys there are. */
    public int size()
    {
        return digests.length;
    }

    private static String id(final byte[] digest)
    {
        final StringBuilder sb = new StringBuilder(8);
        for (int i = 0; i < 4; i++)
        {
            sb.append(Character.forDigit((digest[i] >> 4) & 0xF, 16)).append(Character.forDigit(digest[i] & 0xF, 16));
        }
        return sb.toString();
    }

    private static byte[] hex(final String text)
    {
        if (text.length() != 64)
        {
            return null;
        }
        final byte[] bytes = new byte[32];
        for (int i = 0; i < 32; i++)
        {
            final int high = Character.digit(text.charAt(2 * i), 16);
            final int low = Character.digit(text.charAt(2 * i + 1), 16);
            if (high < 0 || low < 0)
            {
                return null;
            }
            bytes[i] = (byte)(high << 4 | low);
        }
        return bytes;
    }

    private static int firstSpace(final String text)
    {
        for (int i = 0; i < text.length(); i++)
        {
            if (Character.isWhitespace(text.charAt(i)))
            {
                return i;
            }
        }
        return -1;
    }
}
