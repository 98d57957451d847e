package io.multifactor.config.yaml;

/**
 * Raised inside {@link YamlTreeReader} for YAML it does not accept, turned there into a problem located at the node being read.
 * <p>
 * Instances are immutable and threadsafe.
 */
final class ConfigSyntaxException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    ConfigSyntaxException(final String message)
    {
        super(message, null, false, false);
    }
}
