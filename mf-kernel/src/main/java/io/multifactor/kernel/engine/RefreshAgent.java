package io.multifactor.kernel.engine;

import org.agrona.concurrent.Agent;

/**
 * The engine's refresh duty cycle as an Agrona {@link Agent}, for an {@link org.agrona.concurrent.AgentRunner}: each
 * {@link #doWork()} is one {@link MultiFactorEngine#refresh()}.
 * <p>
 * Run it on one thread at a time (the runner's); the engine's lock keeps it apart from plan replacement.
 */
final class RefreshAgent implements Agent
{
    private final MultiFactorEngine engine;

    RefreshAgent(final MultiFactorEngine engine)
    {
        this.engine = engine;
    }

    @Override
    public int doWork()
    {
        return engine.refresh();
    }

    @Override
    public String roleName()
    {
        return "multi-factor-refresh";
    }
}
