package io.multifactor.spring.boot;

import io.multifactor.config.reload.ReloadResult;

import java.util.function.Consumer;

/**
 * What the reloads of the configuration file did: the last result, for the health indicator and for the application
 * (a refused file keeps the running plans; its problems are here).
 * <p>
 * This class is threadsafe: the watcher thread writes, any thread reads.
 */
public final class MultiFactorReloads implements Consumer<ReloadResult>
{
    private volatile ReloadResult last;

    /** @param result a reload's result, from the watcher thread. */
    @Override
    public void accept(final ReloadResult result)
    {
        last = result;
    }

    /** @return the last reload's result, or {@code null} before the first. */
    public ReloadResult last()
    {
        return last;
    }
}
