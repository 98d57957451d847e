package io.multifactor.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A Lua script of the fleet exchange, read once from this package's resources, and its SHA-1 digest (hex) as
 * {@code EVALSHA} names it: {@link #PUBLISH} at the start of a period, {@link #READ} in its middle, {@link #ENTRIES}
 * for the aggregator of a latency period. What each script takes and returns is written at the top of its
 * {@code .lua} file.
 * <p>
 * This class is immutable and threadsafe.
 */
final class FleetScript
{
    /** The period start: counts, replica set, latency entry, aggregator lock ({@code publish.lua}). */
    static final FleetScript PUBLISH = load("publish.lua");

    /** The mid-period read: counts, replica set, fleet aggregate ({@code read.lua}). */
    static final FleetScript READ = load("read.lua");

    /** The aggregator's bounded read of a latency period's entries ({@code entries.lua}). */
    static final FleetScript ENTRIES = load("entries.lua");

    final String source;
    final String digest;

    private FleetScript(final String source)
    {
        this.source = source;
        try
        {
            final byte[] sha = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            final StringBuilder hex = new StringBuilder(40);
            for (final byte b : sha)
            {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            this.digest = hex.toString();
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every JVM has SHA-1", ex);
        }
    }

    private static FleetScript load(final String resource)
    {
        try (InputStream in = FleetScript.class.getResourceAsStream(resource))
        {
            if (in == null)
            {
                throw new IllegalStateException("missing resource " + resource + " beside " + FleetScript.class);
            }
            return new FleetScript(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read resource " + resource, ex);
        }
    }
}
