package io.multifactor.tools;

import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * What {@code mf --version} prints: the project version and the git commit the tool was built from, written into
 * {@code version.properties} and {@code commit.properties} at build time. A build outside a git checkout says
 * {@code commit unknown}; one with uncommitted changes adds {@code , modified}.
 * <p>
 * Instances are stateless and threadsafe.
 */
public final class MfVersion implements IVersionProvider
{
    private static final String UNKNOWN = "unknown";

    /** Creates the provider (picocli instantiates it). */
    public MfVersion()
    {
    }

    @Override
    public String[] getVersion()
    {
        return new String[] {line()};
    }

    /**
     * @return for example {@code mf 0.1.0-SNAPSHOT (commit 1a2b3c4d5e6f)}, with {@code , modified} when the working
     *     tree had uncommitted changes at build time.
     */
    public static String line()
    {
        final Properties properties = new Properties();
        load(properties, "version.properties");
        load(properties, "commit.properties");
        return "mf " + value(properties, "version") + " (commit " + value(properties, "commit") + ')';
    }

    private static void load(final Properties properties, final String resource)
    {
        try (InputStream in = MfVersion.class.getResourceAsStream(resource))
        {
            if (in != null)
            {
                properties.load(in);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + resource, ex);
        }
    }

    /** A value, or {@code unknown} when it is absent or was left unfiltered. */
    private static String value(final Properties properties, final String key)
    {
        final String value = properties.getProperty(key, "").strip();
        return value.isEmpty() || value.startsWith("${") ? UNKNOWN : value;
    }
}
