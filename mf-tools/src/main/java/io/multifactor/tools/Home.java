package io.multifactor.tools;

import java.nio.file.Path;

/**
 * The repository root where the bundled {@code examples/} live: the {@code mf.home} system property that
 * {@code bin/mf} sets, else the working directory.
 * <p>
 * This class is stateless and threadsafe.
 */
final class Home
{
    private Home()
    {
    }

    /** @return the repository root. */
    static Path path()
    {
        final String home = System.getProperty(SimulateCommand.HOME_PROPERTY);
        return home != null && !home.isEmpty() ? Path.of(home).normalize() : Path.of("").toAbsolutePath();
    }
}
