package io.multifactor.gateway.archfixture;

import io.netty.buffer.ByteBuf;

/** A violation for the rule tests only: an mf-gateway class that uses Netty directly, under Vert.x. */
public final class GatewayUsingNetty
{
    private GatewayUsingNetty()
    {
    }

    /** @return a class this module must not use directly. */
    public static Class<?> forbidden()
    {
        return ByteBuf.class;
    }
}
