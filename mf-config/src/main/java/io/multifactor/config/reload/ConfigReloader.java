package io.multifactor.config.reload;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.SignalsConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.Plans;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Hot reload of a running engine's configuration: {@link #reload(Path)} validates and compiles the file against the
 * running plans (so names that stay keep their handles, counters and windows) and swaps the result in with
 * {@link MultiFactorEngine#replacePlans(Plans)}, one atomic publication. A refused file changes nothing and its problems
 * are returned. {@link #watch(Path, Consumer)} does the same whenever the file changes. A reloader built with an overlay
 * ({@link #ConfigReloader(MultiFactorEngine, Path)}) applies it on every reload, as the first load did, and its
 * watchers follow the overlay file too (an edit of either file reloads both).
 * <p>
 * This class is threadsafe: reloads serialize on this object, so each one compiles against the plans it replaces;
 * selections on other threads never wait for a reload.
 */
public final class ConfigReloader implements AutoCloseable
{
    private final MultiFactorEngine engine;
    private final Path overlayOrNull;
    private final List<ConfigFileWatcher> watchers = new ArrayList<>();
    // Guarded by watchers.
    private long closedWatcherFailures;

    /**
     * @param engine the running engine whose plans are replaced.
     */
    public ConfigReloader(final MultiFactorEngine engine)
    {
        this(engine, null);
    }

    /**
     * @param engine the running engine whose plans are replaced.
     * @param overlayOrNull the overlay that completes the configuration on every reload (section "overlay" of the
     *     configuration guide: a vLLM Semantic Router file completed by a file in this library's format), or
     *     {@code null} for none.
     */
    public ConfigReloader(final MultiFactorEngine engine, final Path overlayOrNull)
    {
        this.engine = engine;
        this.overlayOrNull = overlayOrNull;
    }

    /** @return the overlay every reload applies, or {@code null}. */
    public Path overlay()
    {
        return overlayOrNull;
    }

    /**
     * Loads {@code path} and, when it is valid, swaps its plans in atomically; otherwise the running plans stay.
     * The {@code signals:} block is read when the engine is built; a changed one is reported as a warning and takes
     * effect on the next start.
     *
     * @param path the configuration file.
     * @return whether the new plans were applied, with the file's problems or warnings.
     */
    public ReloadResult reload(final Path path)
    {
        return reload(path, null);
    }

    /**
     * As {@link #reload(Path)}, and tells {@code beforeApplyOrNull} the validated configuration just before its plans
     * are swapped in (a server swaps what it derives from the file, such as its backends, in the same step).
     *
     * @param path the configuration file.
     * @param beforeApplyOrNull told the valid configuration before the swap, on the calling thread; or {@code null}.
     * @return whether the new plans were applied, with the file's problems or warnings.
     */
    public synchronized ReloadResult reload(final Path path, final Consumer<LoadedConfig> beforeApplyOrNull)
    {
        final String file = path.toString();
        final LoadedConfig loaded;
        try
        {
            loaded = ConfigLoader.load(path, overlayOrNull, engine.plans(), engine.counterCapacity());
        }
        catch (final InvalidConfigurationException ex)
        {
            engine.countRefusedReload();
            return new ReloadResult(file, false, ex.problems(), List.of());
        }
        if (beforeApplyOrNull != null)
        {
            beforeApplyOrNull.accept(loaded);
        }
        try
        {
            engine.replacePlans(loaded.plans());
        }
        catch (final IllegalStateException ex)
        {
            return new ReloadResult(file, false,
                List.of(new ConfigProblem(file, 1, 1, "", "cannot apply: " + ex.getMessage())), List.of());
        }
        final List<ConfigProblem> warnings = new ArrayList<>(loaded.warnings());
        final SignalSettings running = engine.settings();
        final SignalsConfig wanted = loaded.config().signals();
        if (running.latencyWindowNs() != wanted.latencyWindowNs() ||
            running.latencyRefreshNs() != wanted.latencyRefreshNs() ||
            running.inflightMaxAgeNs() != wanted.inflightMaxAgeNs())
        {
            warnings.add(new ConfigProblem(file, 1, 1, "signals",
                "signals settings differ from the running engine's (" + running + "); they take effect on restart"));
        }
        return new ReloadResult(file, true, List.of(), warnings);
    }

    /**
     * Watches a file and reloads it whenever its content changes, on a daemon thread, until {@link #close()}.
     * <p>
     * The watcher follows the path as the system resolves it: it sees the file written in place or replaced by a rename
     * (as editors save), every symbolic link on the way re-pointed (a Kubernetes ConfigMap volume swaps its
     * {@code ..data} link on update), the target of a link edited in its own directory, and a directory on the way
     * deleted and created again, or renamed away and replaced. A change is reloaded once the content has stayed the
     * same for {@value ConfigFileWatcher#DEFAULT_DEBOUNCE_MS} ms (so a file still being written is not served, and
     * writes to other files never delay it), and a change that leaves the content as it was reloads nothing; a path
     * that is not a regular file (a FIFO) is never opened. Anything the listener
     * or the reload throws, {@link Error}s included, is counted in {@link #watchFailureCount()}, the first of a run is
     * logged (on the {@link System.Logger} named {@code io.multifactor.config.reload}), and watching goes on.
     *
     * @param path the configuration file.
     * @param listener told the result of every reload, on the watcher thread.
     * @throws java.io.IOException when no directory on the way to the file can be watched.
     */
    public void watch(final Path path, final Consumer<ReloadResult> listener) throws java.io.IOException
    {
        watch(path, listener, ConfigFileWatcher.DEFAULT_DEBOUNCE_MS);
    }

    /**
     * As {@link #watch(Path, Consumer)}, with a chosen debounce period.
     *
     * @param path the configuration file.
     * @param listener told the result of every reload, on the watcher thread.
     * @param debounceMs how long, in milliseconds (at least 1), the content must stay the same before it is reloaded.
     * @throws java.io.IOException when no directory on the way to the file can be watched.
     */
    public void watch(final Path path, final Consumer<ReloadResult> listener, final long debounceMs)
        throws java.io.IOException
    {
        watch(path, listener, debounceMs, null);
    }

    /**
     * As {@link #watch(Path, Consumer, long)}, each reload as {@link #reload(Path, Consumer)}.
     *
     * @param path the configuration file.
     * @param listener told the result of every reload, on the watcher thread.
     * @param debounceMs quiet period, in milliseconds (at least 1), that ends a burst of events.
     * @param beforeApplyOrNull told each valid configuration before its plans are swapped in, or {@code null}.
     * @throws java.io.IOException when no directory on the way to the file can be watched.
     */
    public void watch(final Path path, final Consumer<ReloadResult> listener, final long debounceMs,
        final Consumer<LoadedConfig> beforeApplyOrNull) throws java.io.IOException
    {
        final Runnable onChange = () -> listener.accept(reload(path, beforeApplyOrNull));
        final ConfigFileWatcher watcher = new ConfigFileWatcher(path, onChange, debounceMs);
        synchronized (watchers)
        {
            watchers.add(watcher);
        }
        watcher.start();
        if (overlayOrNull != null)
        {
            // An edit of the overlay reloads the configuration with it, as an edit of the configuration does.
            final ConfigFileWatcher overlayWatcher = new ConfigFileWatcher(overlayOrNull, onChange, debounceMs);
            synchronized (watchers)
            {
                watchers.add(overlayWatcher);
            }
            overlayWatcher.start();
        }
    }

    /** @return how many reloads (or listener calls) of every watcher threw, since this reloader was created. */
    public long watchFailureCount()
    {
        long failures = closedWatcherFailures;
        synchronized (watchers)
        {
            for (final ConfigFileWatcher watcher : watchers)
            {
                failures += watcher.failureCount();
            }
        }
        return failures;
    }

    /** Stops every watcher; the engine keeps running with the plans it has. */
    @Override
    public void close()
    {
        synchronized (watchers)
        {
            for (final ConfigFileWatcher watcher : watchers)
            {
                watcher.close();
                closedWatcherFailures += watcher.failureCount();
            }
            watchers.clear();
        }
    }
}
