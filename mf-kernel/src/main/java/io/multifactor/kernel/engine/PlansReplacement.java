package io.multifactor.kernel.engine;

import io.multifactor.kernel.plan.Plans;
import org.agrona.concurrent.NanoClock;

import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Replaces the engine's plans ({@link StateInstaller#replace}) and tells the listeners that follow them (the metrics
 * binder), after a replacement and after any other change of the engine's counters (a new server configuration).
 * <p>
 * This class is threadsafe: the listeners are a copy-on-write list, so they may be added and removed from any thread
 * while they are told; a replacement waits for the engine's lock, and the listeners run after it, with no lock held.
 */
final class PlansReplacement
{
    private final StateInstaller installer;
    private final NanoClock clock;
    private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();

    PlansReplacement(final StateInstaller installer, final NanoClock clock)
    {
        this.installer = installer;
        this.clock = clock;
    }

    /**
     * @param next the new snapshot.
     * @throws IllegalStateException when a counter cannot be allocated (the running plans stay, the listeners are not
     *     told), or the engine is closed.
     */
    void replace(final Plans next)
    {
        installer.replace(Objects.requireNonNull(next, "next"), clock);
        tellListeners();
    }

    /** Calls every listener, in the order they were added, on the calling thread. */
    void tellListeners()
    {
        for (final Runnable listener : listeners)
        {
            listener.run();
        }
    }

    void addListener(final Runnable listener)
    {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    void removeListener(final Runnable listener)
    {
        listeners.remove(listener);
    }
}
