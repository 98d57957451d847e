package io.multifactor.micrometer.archfixture;

import io.multifactor.config.ConfigLoader;

/** A violation for the rule tests only: an mf-micrometer class that uses mf-config. */
public final class MicrometerUsingConfig
{
    private MicrometerUsingConfig()
    {
    }

    /** @return a class this module must not see. */
    public static Class<?> forbidden()
    {
        return ConfigLoader.class;
    }
}
