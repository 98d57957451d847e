package io.multifactor.fakes.archfixture;

import io.multifactor.config.ConfigLoader;

/** A violation for the rule tests only: an mf-fakes class that uses the configuration layer. */
public final class FakesUsingConfig
{
    private FakesUsingConfig()
    {
    }

    /** @return a class this module must not see. */
    public static Class<?> forbidden()
    {
        return ConfigLoader.class;
    }
}
