package io.multifactor.kernel.engine;

import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A router process for the counters-file tests, run in its own JVM: builds an engine with a counters file and its
 * refresh agent, prints {@code ready PID}, then selects, begins and ends leases and records samples on two threads
 * for the given seconds (0: until killed), and prints {@code done SELECTIONS} and exits 0. A build that fails prints
 * {@code refused MESSAGE} and exits 3.
 * <p>
 * Arguments: the counters file, the seconds to run, and optionally the counter capacity.
 * <p>
 * This class runs on its main thread and the two threads it starts.
 */
public final class CountersFileEngineMain
{
    private CountersFileEngineMain()
    {
    }

    /**
     * @param args file, seconds, [capacity].
     * @throws Exception when the run itself breaks (exits non-zero).
     */
    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        final long seconds = Long.parseLong(args[1]);
        final Plans plans = new PlansBuilder().model("a", 0.9, 2.0).model("b", 0.5, 1.0)
            .decision("d").candidates("a", "b").slo(100.0, 0, 0, 0).add().build();
        final MultiFactorEngine.Builder builder = MultiFactorEngine.builder(plans).countersFile(file)
            .settings(new SignalSettings(TimeUnit.SECONDS.toNanos(10), TimeUnit.MILLISECONDS.toNanos(20),
                TimeUnit.MINUTES.toNanos(10)));
        if (args.length > 2)
        {
            builder.counterCapacity(Integer.parseInt(args[2]));
        }
        final MultiFactorEngine engine;
        try
        {
            engine = builder.build();
        }
        catch (final UncheckedIOException ex)
        {
            System.out.println("refused " + ex.getMessage());
            System.out.flush();
            System.exit(3);
            return;
        }
        final AtomicReference<Throwable> agentError = new AtomicReference<>();
        try (engine;
            AgentRunner refresh = new AgentRunner(
                new SleepingMillisIdleStrategy(1), agentError::set, null, engine.agent()))
        {
            AgentRunner.startOnThread(refresh);
            final long[] selections = new long[2];
            final long endNs = seconds == 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            final Thread[] threads = new Thread[2];
            for (int t = 0; t < threads.length; t++)
            {
                final int index = t;
                threads[t] = new Thread(() ->
                {
                    final Selection out = new Selection();
                    final int decision = engine.decisionId("d");
                    while (System.nanoTime() - endNs < 0)
                    {
                        final long lease = engine.selectAndBegin(decision, null, out);
                        engine.recordTpotMs(out.selectedModel(), 40.0 + (selections[index] & 63));
                        engine.end(lease);
                        selections[index]++;
                    }
                });
                threads[t].start();
            }
            System.out.println("ready " + ProcessHandle.current().pid());
            System.out.flush();
            for (final Thread thread : threads)
            {
                thread.join();
            }
            if (agentError.get() != null)
            {
                throw new IllegalStateException("the refresh agent failed", agentError.get());
            }
            System.out.println("done " + (selections[0] + selections[1]));
            System.out.flush();
        }
    }
}
