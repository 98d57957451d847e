package io.multifactor.sim.archfixture;

import io.multifactor.gateway.Gateway;

/** A violation for the rule tests only: an mf-sim class that uses the gateway (the load generator sends over sockets). */
public final class SimUsingGateway
{
    private SimUsingGateway()
    {
    }

    /** @return a class this module must not see. */
    public static Class<?> forbidden()
    {
        return Gateway.class;
    }
}
