package io.multifactor.kernel.archfixture;

import io.multifactor.config.ConfigLoader;

/** A violation for the rule tests only: an mf-kernel class that uses mf-config. */
public final class KernelUsingConfig
{
    private KernelUsingConfig()
    {
    }

    /** @return a configuration class, which mf-kernel must not see. */
    public static Class<?> loader()
    {
        return ConfigLoader.class;
    }
}
