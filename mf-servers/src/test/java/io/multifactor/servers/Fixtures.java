package io.multifactor.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The /metrics bodies of the tests, as vLLM and SGLang write them. Stateless and threadsafe. */
final class Fixtures
{
    private Fixtures()
    {
    }

    /**
     * @param name a resource next to this class.
     * @return its bytes.
     */
    static byte[] bytes(final String name)
    {
        try (InputStream in = Fixtures.class.getResourceAsStream(name))
        {
            if (in == null)
            {
                throw new IllegalStateException("no fixture " + name);
            }
            return in.readAllBytes();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
