package io.multifactor.kernel.engine;

import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class RefreshAgentTest
{
    @Test
    void shouldPublishPercentilesWhenRunByAgentRunner() throws Exception
    {
        final Plans plans = new PlansBuilder().model("a", 0.5, 1.0).decision("d").candidates("a").add().build();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans)
            .settings(new SignalSettings(TimeUnit.SECONDS.toNanos(60), TimeUnit.MILLISECONDS.toNanos(5),
                TimeUnit.MINUTES.toNanos(10)))
            .build())
        {
            assertThat(engine.agent().roleName()).isEqualTo("multi-factor-refresh");
            final int a = engine.modelId("a");
            engine.recordTpotMs(a, 42.0);
            final Selection out = new Selection();
            try (AgentRunner runner = new AgentRunner(new SleepingMillisIdleStrategy(1), error::set, null, engine.agent()))
            {
                AgentRunner.startOnThread(runner);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                do
                {
                    Thread.sleep(5);
                    engine.select(engine.decisionId("d"), null, out);
                }
                while (Double.isNaN(out.tpotMs(0)) && System.nanoTime() < deadline);
            }
            assertThat(error.get()).isNull();
            assertThat(out.tpotMs(0)).isBetween(42.0, 42.0 * 1.01);
        }
    }
}
