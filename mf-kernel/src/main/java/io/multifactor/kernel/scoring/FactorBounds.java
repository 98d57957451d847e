package io.multifactor.kernel.scoring;

import io.multifactor.api.Factor;
import io.multifactor.api.Selection;

/**
 * Writes the bounds of every factor of the signal table, as a kernel's gather loop kept them in locals (a pair per
 * factor, in {@link Factor} order), into a selection.
 * <p>
 * This class is stateless and threadsafe.
 */
final class FactorBounds
{
    private FactorBounds()
    {
    }

    static void write(
        final Selection out,
        final double qualityMin,
        final double qualityMax,
        final double latencyMin,
        final double latencyMax,
        final double costMin,
        final double costMax,
        final double loadMin,
        final double loadMax,
        final double queueMin,
        final double queueMax,
        final double kvCacheMin,
        final double kvCacheMax)
    {
        SelectionWriter.bounds(out, Factor.QUALITY, qualityMin, qualityMax);
        SelectionWriter.bounds(out, Factor.LATENCY, latencyMin, latencyMax);
        SelectionWriter.bounds(out, Factor.COST, costMin, costMax);
        SelectionWriter.bounds(out, Factor.LOAD, loadMin, loadMax);
        SelectionWriter.bounds(out, Factor.QUEUE, queueMin, queueMax);
        SelectionWriter.bounds(out, Factor.KV_CACHE, kvCacheMin, kvCacheMax);
    }
}
