package io.multifactor.gateway;

import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * The tests of {@link GatewayLoadTest} on the gateway served by Netty: 10,000 streams with one in ten reset by the
 * client once its response began leave no lease behind, and a reload while streams are open keeps them whole.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NettyGatewayLoadTest extends GatewayLoadTest
{
    @Override
    GatewayServer server()
    {
        return GatewayServer.NETTY;
    }
}
