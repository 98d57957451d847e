package io.multifactor.fakes;

import java.util.List;

/**
 * A set of fake model servers: the seed of their draws and one profile per model, in file order.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param seed seed of every server's draws (each server derives its own from it and its position).
 * @param models one profile per model; names and non-zero ports distinct.
 */
public record BackendsProfile(long seed, List<FakeModelProfile> models)
{
    /**
     * @param seed seed.
     * @param models profiles; copied.
     */
    public BackendsProfile
    {
        models = List.copyOf(models);
    }
}
