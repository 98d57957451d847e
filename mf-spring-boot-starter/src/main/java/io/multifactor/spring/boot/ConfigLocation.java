package io.multifactor.spring.boot;

import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Where {@code multifactor.config} (or {@code multifactor.overlay}) points: a file the engine can read and, when it is
 * on the file system, watch. A classpath resource packed in a jar is copied to a temporary file once (it cannot change,
 * so it is not watched); its name stays in the error messages through the copy's file name.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param location the property's value as given.
 * @param path the file to read.
 * @param watchable whether the file is the user's own (on the file system), which a reload may follow.
 */
record ConfigLocation(String location, Path path, boolean watchable)
{
    private static final String CLASSPATH = "classpath:";
    private static final String FILE = "file:";

    static ConfigLocation resolve(final String location, final ResourceLoader resources)
    {
        if (!location.startsWith(CLASSPATH))
        {
            final String plain = location.startsWith(FILE) ? location.substring(FILE.length()) : location;
            return new ConfigLocation(location, Path.of(plain), true);
        }
        final Resource resource = resources.getResource(location);
        if (!resource.exists())
        {
            throw new IllegalStateException("multifactor: " + location + " does not exist on the class path");
        }
        try
        {
            if (resource.isFile())
            {
                return new ConfigLocation(location, resource.getFile().toPath(), true);
            }
            final String name = resource.getFilename() == null ? "multifactor.yaml" : resource.getFilename();
            final Path copy = Files.createTempDirectory("multifactor-").resolve(name);
            try (InputStream in = resource.getInputStream())
            {
                Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            }
            copy.toFile().deleteOnExit();
            copy.getParent().toFile().deleteOnExit();
            return new ConfigLocation(location, copy, false);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("multifactor: cannot read " + location, ex);
        }
    }
}
