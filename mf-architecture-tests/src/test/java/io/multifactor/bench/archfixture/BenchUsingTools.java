package io.multifactor.bench.archfixture;

import io.multifactor.tools.Mf;

/** A violation for the rule tests only: an mf-bench class that uses the CLI. */
public final class BenchUsingTools
{
    private BenchUsingTools()
    {
    }

    /** @return a class this module must not see. */
    public static Class<?> forbidden()
    {
        return Mf.class;
    }
}
