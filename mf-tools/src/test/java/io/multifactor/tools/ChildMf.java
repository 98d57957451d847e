package io.multifactor.tools;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bin/mf} as an operator runs it, in a child JVM (the script's own JVM flags) on this test's classpath: what the
 * signal tests of {@code serve} and {@code envoy} share.
 * <p>
 * This class is stateless and threadsafe.
 */
final class ChildMf
{
    private ChildMf()
    {
    }

    /**
     * @param args the command and its options, such as {@code serve --config FILE}.
     * @return a builder for {@code bash bin/mf ARGS} with {@code MF_CLASSPATH} set to this JVM's classpath; the caller
     *     sets the redirects and starts it.
     */
    static ProcessBuilder builder(final List<String> args)
    {
        final Path script = Path.of("..", "bin", "mf").toAbsolutePath().normalize();
        final List<String> command = new ArrayList<>(List.of("bash", script.toString()));
        command.addAll(args);
        final ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("MF_CLASSPATH", System.getProperty("java.class.path"));
        return builder;
    }
}
