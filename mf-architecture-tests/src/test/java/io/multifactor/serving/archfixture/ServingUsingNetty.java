package io.multifactor.serving.archfixture;

import io.netty.buffer.ByteBuf;

/** A violation for the rule tests only: an mf-serving class that uses a network stack (Netty, under Vert.x and gRPC). */
public final class ServingUsingNetty
{
    private ServingUsingNetty()
    {
    }

    /** @return a class this module must not see. */
    public static Class<?> forbidden()
    {
        return ByteBuf.class;
    }
}
