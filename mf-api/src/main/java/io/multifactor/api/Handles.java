package io.multifactor.api;

/**
 * Models and decisions are addressed by dense int handles resolved once from their names, so the request path never
 * hashes a string. A handle stays valid across reloads for as long as its name stays in the configuration.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Handles
{
    /** Handle of nothing: an unknown name, or no model selected. */
    public static final int NONE = -1;

    private Handles()
    {
    }
}
