package io.multifactor.api.archfixture;

import io.multifactor.kernel.engine.MultiFactorEngine;

/** A violation for the rule tests only: an mf-api class that uses the kernel. */
public final class ApiUsingTheKernel
{
    private ApiUsingTheKernel()
    {
    }

    /** @return the engine's class, which mf-api must not see (a constant would be inlined, leaving no trace). */
    public static Class<?> engine()
    {
        return MultiFactorEngine.class;
    }
}
