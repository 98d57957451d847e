package io.multifactor.gateway.archfixture;

import io.multifactor.tools.Mf;

/** A violation for the rule tests only: an mf-gateway class that uses the command line. */
public final class GatewayUsingTools
{
    private GatewayUsingTools()
    {
    }

    /** @return a class this module must not see. */
    public static Class<?> forbidden()
    {
        return Mf.class;
    }
}
