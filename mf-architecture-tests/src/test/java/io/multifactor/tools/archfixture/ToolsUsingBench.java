package io.multifactor.tools.archfixture;

import io.multifactor.bench.BenchFlags;

/** A violation for the rule tests only: an mf-tools class that uses the benchmarks. */
public final class ToolsUsingBench
{
    private ToolsUsingBench()
    {
    }

    /** @return a class this module must not see. */
    public static Class<?> forbidden()
    {
        return BenchFlags.class;
    }
}
