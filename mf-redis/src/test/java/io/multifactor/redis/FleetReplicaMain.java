package io.multifactor.redis;

import io.multifactor.kernel.fleet.FleetAgent;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One router replica in its own JVM, for {@link FleetAcrossProcessesTest}: an engine with a Redis fleet agent
 * (password from {@code MF_REDIS_PASSWORD}). Reads commands on stdin ({@code begin N}, {@code exit}); prints
 * {@code began N EPOCH_MS} after taking N leases on model {@code a}, and {@code fleet COUNT LOCAL EPOCH_MS} whenever
 * the fleet-wide in-flight count of {@code a} changes.
 * <p>
 * Not threadsafe beyond what the engine is: one reader thread, one reporting thread.
 */
public final class FleetReplicaMain
{
    private FleetReplicaMain()
    {
    }

    /**
     * @param args URL, cluster, period in ms, replica id, leases to take at start.
     * @throws Exception when stdin fails.
     */
    public static void main(final String[] args) throws Exception
    {
        final MultiFactorEngine engine = MultiFactorEngine.builder(new PlansBuilder()
            .model("a", 0.9, 1.0).model("b", 0.5, 1.0)
            .decision("d").candidates("a", "b").add().build()).build();
        final RedisFleetExchange exchange = RedisFleetExchange.create(
            RedisFleetSettings.of(args[0], args[1], Duration.ofMillis(Long.parseLong(args[2])), args[3]));
        final FleetAgent agent = FleetAgent.of(engine, exchange);
        final AgentRunner fleet = new AgentRunner(new SleepingMillisIdleStrategy(1), Throwable::printStackTrace, null,
            agent);
        AgentRunner.startOnThread(fleet);
        final int a = engine.modelId("a");
        for (int i = 0; i < Integer.parseInt(args[4]); i++)
        {
            engine.begin(a);
        }
        final Thread reporter = new Thread(() ->
        {
            long last = -1;
            while (true)
            {
                final long now = engine.inflight(a);
                if (now != last)
                {
                    last = now;
                    say("fleet " + now + " " + engine.localInflight(a) + " " + System.currentTimeMillis());
                }
                try
                {
                    Thread.sleep(1);
                }
                catch (final InterruptedException ex)
                {
                    return;
                }
            }
        });
        reporter.setDaemon(true);
        reporter.start();
        say("ready");
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.equals("exit"))
        {
            if (line.startsWith("begin "))
            {
                final int n = Integer.parseInt(line.substring(6));
                for (int i = 0; i < n; i++)
                {
                    engine.begin(a);
                }
                say("began " + n + " " + System.currentTimeMillis());
            }
        }
        fleet.close();
        exchange.close();
        engine.close();
    }

    private static synchronized void say(final String line)
    {
        System.out.println(line);
        System.out.flush();
    }
}
