package io.multifactor.envoy;

/**
 * What the service tells Envoy about the model it chose: the model's name for route matching ({@link #VSR}, as vLLM
 * Semantic Router does) or one backend's address for an original-destination cluster ({@link #ENDPOINT}, as the
 * Gateway API Inference Extension's endpoint picker does).
 * <p>
 * This enum is immutable and threadsafe.
 */
public enum EnvoyMode
{
    /** Header {@code x-selected-model: MODEL} and the body's {@code model} rewritten to its provider model id. */
    VSR("vsr"),
    /**
     * Header {@code x-gateway-destination-endpoint: host:port} of one backend of the chosen model, and the same value
     * in the dynamic metadata namespace {@code envoy.lb}.
     */
    ENDPOINT("endpoint");

    private final String word;

    EnvoyMode(final String word)
    {
        this.word = word;
    }

    /** @return the word that names this mode on the command line ({@code vsr} or {@code endpoint}). */
    public String word()
    {
        return word;
    }

    /**
     * @param word {@code vsr} or {@code endpoint}.
     * @return the mode that word names.
     * @throws IllegalArgumentException for any other word, naming the accepted ones.
     */
    public static EnvoyMode parse(final String word)
    {
        for (final EnvoyMode mode : values())
        {
            if (mode.word.equals(word))
            {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown mode '" + word + "': expected vsr or endpoint");
    }
}
