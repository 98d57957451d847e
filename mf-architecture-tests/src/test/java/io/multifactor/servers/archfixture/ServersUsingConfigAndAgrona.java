package io.multifactor.servers.archfixture;

import io.multifactor.config.ConfigLoader;
import org.agrona.concurrent.SystemNanoClock;

/** A violation for the rule tests only: an mf-servers class that uses mf-config and Agrona. */
public final class ServersUsingConfigAndAgrona
{
    private ServersUsingConfigAndAgrona()
    {
    }

    /** @return a configuration class, which mf-servers must not see. */
    public static Class<?> loader()
    {
        return ConfigLoader.class;
    }

    /** @return Agrona's clock, which mf-servers must not use (it takes the engine's clock as a LongSupplier). */
    public static long now()
    {
        return SystemNanoClock.INSTANCE.nanoTime();
    }
}
