package io.multifactor.config.archfixture;

import io.multifactor.micrometer.MultiFactorMetrics;

/** A violation for the rule tests only: an mf-config class that uses mf-micrometer. */
public final class ConfigUsingMicrometer
{
    private ConfigUsingMicrometer()
    {
    }

    /** @return the metrics binder's class, which mf-config must not see. */
    public static Class<?> binder()
    {
        return MultiFactorMetrics.class;
    }
}
