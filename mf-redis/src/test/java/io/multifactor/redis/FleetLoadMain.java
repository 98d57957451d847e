package io.multifactor.redis;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.fleet.FleetAgent;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Several fleet replicas in one JVM, for {@link FleetLoadRun}: each an engine of M models with its own Redis exchange
 * and fleet agent on its own thread, every model busy on every replica (8 TTFT and 8 TPOT samples per model and
 * replica each period, and in-flight counts that change every period: the worst case for sizes, as docs/fleet.md's
 * cost table assumes). After the run it prints {@code cpu REPLICAS PERIODS AGENT_CPU_NS EXCHANGED FAILED}: the CPU
 * time of the agents' threads, measured by the JVM.
 * <p>
 * Arguments: Redis URL, cluster, replicas in this JVM, first replica number, models, seconds, period in ms.
 * <p>
 * This class runs on its main thread (the traffic) and one thread per agent.
 */
public final class FleetLoadMain
{
    private FleetLoadMain()
    {
    }

    /**
     * @param args URL, cluster, replicas, first replica number, models, seconds, period ms.
     * @throws InterruptedException never in practice.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final String url = args[0];
        final String cluster = args[1];
        final int replicas = Integer.parseInt(args[2]);
        final int first = Integer.parseInt(args[3]);
        final int models = Integer.parseInt(args[4]);
        final long seconds = Long.parseLong(args[5]);
        final long periodMs = Long.parseLong(args[6]);

        final PlansBuilder plans = new PlansBuilder();
        final String[] names = new String[models];
        for (int m = 0; m < models; m++)
        {
            names[m] = String.format(Locale.ROOT, "model-%02d", m);
            plans.model(names[m], 0.5 + m / (4.0 * models), 1.0 + m);
        }
        plans.decision("d").candidates(names).add();

        final List<MultiFactorEngine> engines = new ArrayList<>();
        final List<FleetAgent> agents = new ArrayList<>();
        final List<AgentRunner> runners = new ArrayList<>();
        final List<RedisFleetExchange> exchanges = new ArrayList<>();
        for (int r = 0; r < replicas; r++)
        {
            final MultiFactorEngine engine = MultiFactorEngine.builder(plans.build()).build();
            final RedisFleetExchange exchange = RedisFleetExchange.create(RedisFleetSettings.of(
                url, cluster, Duration.ofMillis(periodMs), "replica-" + (first + r)));
            final FleetAgent agent = FleetAgent.of(engine, exchange);
            final AgentRunner runner = new AgentRunner(
                new SleepingMillisIdleStrategy(1), Throwable::printStackTrace, null, agent);
            engines.add(engine);
            agents.add(agent);
            exchanges.add(exchange);
            runners.add(runner);
        }
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final List<Thread> agentThreads = new ArrayList<>();
        for (final AgentRunner runner : runners)
        {
            agentThreads.add(AgentRunner.startOnThread(runner));
        }
        System.out.println("ready");
        System.out.flush();

        final SplittableRandom random = new SplittableRandom(first);
        final long[][] leases = new long[replicas][models];
        final long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        final long startCpuNs = cpu(threads, agentThreads);
        final long startNs = System.nanoTime();
        while (System.nanoTime() - endNs < 0)
        {
            for (int r = 0; r < replicas; r++)
            {
                final MultiFactorEngine engine = engines.get(r);
                for (int m = 0; m < models; m++)
                {
                    final int model = engine.modelId(names[m]);
                    for (int s = 0; s < 8; s++)
                    {
                        engine.recordTtftMs(model, 100.0 + random.nextInt(900));
                        engine.recordTpotMs(model, 10.0 + random.nextInt(90));
                    }
                    // A count that changes every period: end the last one, begin a new one.
                    if (leases[r][m] != 0)
                    {
                        engine.end(leases[r][m]);
                    }
                    leases[r][m] = random.nextBoolean() ? engine.begin(model) : 0;
                }
            }
            Thread.sleep(periodMs);
        }
        final long elapsedNs = System.nanoTime() - startNs;
        final long agentCpuNs = cpu(threads, agentThreads) - startCpuNs;
        long exchanged = 0;
        long failed = 0;
        for (final FleetAgent agent : agents)
        {
            exchanged += agent.exchangedCount();
            failed += agent.failedCount();
        }
        final long periods = elapsedNs / TimeUnit.MILLISECONDS.toNanos(periodMs);
        System.out.println("cpu " + replicas + " " + periods + " " + agentCpuNs + " " + exchanged + " " + failed);
        System.out.flush();
        for (int r = 0; r < replicas; r++)
        {
            runners.get(r).close();
            exchanges.get(r).close();
            engines.get(r).close();
        }
    }

    private static long cpu(final ThreadMXBean threads, final List<Thread> agentThreads)
    {
        long total = 0;
        for (final Thread thread : agentThreads)
        {
            total += Math.max(0L, threads.getThreadCpuTime(thread.getId()));
        }
        return total;
    }
}
