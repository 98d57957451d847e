package io.multifactor.serving;

import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.kernel.fleet.FleetSignals;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The engine host runs a given fleet exchange on its own agent, and closes it with the engine. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EngineHostFleetTest
{
    @Test
    void shouldRunTheFleetExchangeBesideTheEngineAndCloseItWithTheHost() throws Exception
    {
        final CountingExchange exchange = new CountingExchange();
        try (EngineHost host = EngineHost.start(Engines.load(Engines.TWO_MODELS), null, null, exchange))
        {
            while (exchange.exchanges.get() < 3)
            {
                Thread.onSpinWait();
            }
            assertThat(exchange.closed).isFalse();
            assertThat(host.fleetErrorCount()).isZero();
        }
        assertThat(exchange.closed).isTrue();
    }

    @Test
    void shouldRunWithoutAFleetAndRefuseToReloadWithoutAFile()
    {
        try (EngineHost host = EngineHost.start(Engines.load(Engines.TWO_MODELS), null, null, null))
        {
            assertThat(host.engine().decisionId("d")).isNotNegative();
            assertThat(host.fleetErrorCount()).isZero();
            assertThatThrownBy(host::reload)
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("without a configuration file");
        }
    }

    /** A transport that only counts its calls. */
    private static final class CountingExchange implements FleetExchange
    {
        final AtomicInteger exchanges = new AtomicInteger();
        volatile boolean closed;

        @Override
        public int exchange(final long nowNs, final FleetSignals local, final FleetSignals remote)
        {
            exchanges.incrementAndGet();
            return EXCHANGED;
        }

        @Override
        public long periodNs()
        {
            return TimeUnit.MILLISECONDS.toNanos(1);
        }

        @Override
        public long tickNs()
        {
            return TimeUnit.MILLISECONDS.toNanos(1);
        }

        @Override
        public int liveRemoteReplicas()
        {
            return 0;
        }

        @Override
        public long skippedEntryCount()
        {
            return 0;
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }
}
