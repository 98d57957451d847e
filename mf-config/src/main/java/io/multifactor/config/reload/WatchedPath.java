package io.multifactor.config.reload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Where a change to one file can show up, as the kernel resolves its path: the directory that holds each symbolic link
 * on the way (with the link's name), the real directory that holds the file itself and that directory's parent (with
 * the directory's name, so that its replacement is seen), and, when a directory on the way is missing, its nearest
 * existing parent (with the missing name, so that its re-creation is seen).
 * <p>
 * For a Kubernetes ConfigMap mounted at {@code /etc/router}, {@code /etc/router/router.yaml -> ..data/router.yaml}
 * and {@code ..data -> ..2026_11_30_09_00_00.1}: the names are {@code router.yaml}, {@code ..data} and
 * {@code ..2026_11_30_09_00_00.1} in {@code /etc/router}, and {@code router.yaml} in
 * {@code /etc/router/..2026_11_30_09_00_00.1}. An update renames a new
 * {@code ..data} link over the old one, an event on a watched name.
 * <p>
 * Instances are immutable snapshots of the file system at the time of {@link #resolve(Path)}; this class is threadsafe.
 */
final class WatchedPath
{
    /** Most symbolic links followed, as the Linux kernel's limit. */
    static final int MAX_LINKS = 40;

    private final Map<Path, Set<String>> namesByDirectory;
    private final boolean complete;

    private WatchedPath(final Map<Path, Set<String>> namesByDirectory, final boolean complete)
    {
        this.namesByDirectory = namesByDirectory;
        this.complete = complete;
    }

    /**
     * Follows a path, link by link.
     *
     * @param file the watched file, as given.
     * @return the directories to watch and the names that matter in each.
     */
    static WatchedPath resolve(final Path file)
    {
        final Map<Path, Set<String>> names = new LinkedHashMap<>();
        Path remaining = file.toAbsolutePath();
        for (int links = 0; links <= MAX_LINKS; links++)
        {
            final Path next = walk(remaining, names);
            if (next == null)
            {
                return new WatchedPath(names, isRegularFile(file));
            }
            remaining = next;
        }
        return new WatchedPath(names, false);
    }

    /** @return real directory to the names in it whose events concern the file. */
    Map<Path, Set<String>> namesByDirectory()
    {
        return namesByDirectory;
    }

    /** @return whether every step of the path exists and it ends at a regular file. */
    boolean complete()
    {
        return complete;
    }

    /**
     * @param directory a real directory.
     * @param name the name an event reports in it.
     * @return whether that event concerns the file.
     */
    boolean concerns(final Path directory, final String name)
    {
        final Set<String> set = namesByDirectory.get(directory);
        return set != null && set.contains(name);
    }

    /**
     * Walks the components of an absolute path from the root, recording where to watch, until a symbolic link (then
     * returns the path to walk next: the link's target followed by the components after the link) or the end.
     */
    private static Path walk(final Path absolute, final Map<Path, Set<String>> names)
    {
        Path real = absolute.getRoot();
        final int count = absolute.getNameCount();
        for (int i = 0; i < count; i++)
        {
            final String component = absolute.getName(i).toString();
            if (component.equals("."))
            {
                continue;
            }
            if (component.equals(".."))
            {
                real = real.getParent() == null ? real : real.getParent();
                continue;
            }
            final Path here = real.resolve(component);
            final boolean last = i == count - 1;
            if (Files.isSymbolicLink(here))
            {
                add(names, real, component);
                final Path target;
                try
                {
                    target = Files.readSymbolicLink(here);
                }
                catch (final IOException | UnsupportedOperationException | SecurityException ex)
                {
                    return null;
                }
                Path next = real.resolve(target);
                if (!last)
                {
                    next = next.resolve(absolute.subpath(i + 1, count));
                }
                return next;
            }
            if (last || !Files.isDirectory(here, LinkOption.NOFOLLOW_LINKS))
            {
                // The file itself, or the first missing step: watch its directory for that name.
                add(names, real, component);
                if (last && real.getParent() != null && real.getFileName() != null)
                {
                    // And the directory's parent for the directory's name: renamed away and replaced, it is seen.
                    add(names, real.getParent(), real.getFileName().toString());
                }
                return null;
            }
            real = here;
        }
        return null;
    }

    private static void add(final Map<Path, Set<String>> names, final Path directory, final String name)
    {
        names.computeIfAbsent(directory, d -> new HashSet<>()).add(name);
    }

    private static boolean isRegularFile(final Path file)
    {
        return Files.isRegularFile(file);
    }

    @Override
    public String toString()
    {
        return "WatchedPath{" + namesByDirectory + (complete ? "" : ", incomplete") + '}';
    }
}
