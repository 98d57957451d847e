package io.multifactor.archfixture.two;

import io.multifactor.archfixture.one.One;

/** The other half of a package cycle, for the rule tests only. */
public final class Two
{
    private Two()
    {
    }

    /** @return the first half. */
    public static Class<?> other()
    {
        return One.class;
    }
}
