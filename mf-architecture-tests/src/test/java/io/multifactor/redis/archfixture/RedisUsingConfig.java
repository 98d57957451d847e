package io.multifactor.redis.archfixture;

import io.multifactor.config.ConfigLoader;

/** A violation for the rule tests only: an mf-redis class that uses mf-config. */
public final class RedisUsingConfig
{
    private RedisUsingConfig()
    {
    }

    /** @return a class this module must not see. */
    public static Class<?> forbidden()
    {
        return ConfigLoader.class;
    }
}
