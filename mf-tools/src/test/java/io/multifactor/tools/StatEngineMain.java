package io.multifactor.tools;

import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

import java.nio.file.Path;

/**
 * A router for {@link StatCommandTest}, in its own JVM: an engine with its counters in the file given as the only
 * argument and its refresh agent on a thread; prints {@code ready PID} and selects about every millisecond until it
 * is killed.
 * <p>
 * This class runs on its main thread and the agent's.
 */
public final class StatEngineMain
{
    private StatEngineMain()
    {
    }

    /**
     * @param args the counters file.
     * @throws InterruptedException never in practice: the process is killed.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final MultiFactorEngine engine = MultiFactorEngine.builder(new PlansBuilder()
            .model("premium", 0.9, 10.0).model("economy", 0.1, 1.0)
            .decision("chat").candidates("premium", "economy").add().build())
            .countersFile(Path.of(args[0])).build();
        final AgentRunner refresh = new AgentRunner(
            new SleepingMillisIdleStrategy(1), Throwable::printStackTrace, null, engine.agent());
        AgentRunner.startOnThread(refresh);
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        final Selection out = new Selection();
        final int chat = engine.decisionId("chat");
        while (true)
        {
            engine.select(chat, null, out);
            Thread.sleep(1);
        }
    }
}
