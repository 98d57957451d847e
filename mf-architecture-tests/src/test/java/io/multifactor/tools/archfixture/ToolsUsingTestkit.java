package io.multifactor.tools.archfixture;

import io.multifactor.testkit.reference.ReferenceRouter;

/** A violation for the rule tests only: a main class outside mf-bench (here mf-tools's) that uses mf-testkit. */
public final class ToolsUsingTestkit
{
    private ToolsUsingTestkit()
    {
    }

    /** @return a class only mf-bench may see in main scope. */
    public static Class<?> forbidden()
    {
        return ReferenceRouter.class;
    }
}
