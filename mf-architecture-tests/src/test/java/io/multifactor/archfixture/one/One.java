package io.multifactor.archfixture.one;

import io.multifactor.archfixture.two.Two;

/** One half of a package cycle, for the rule tests only. */
public final class One
{
    private One()
    {
    }

    /** @return the other half. */
    public static Class<?> other()
    {
        return Two.class;
    }
}
