/**
 * The engine's counters: the buffers that hold them in direct or memory-mapped memory
 * ({@link io.multifactor.kernel.metrics.CounterBuffers}), their type ids and parseable labels
 * ({@link io.multifactor.kernel.metrics.CounterTypes}, {@link io.multifactor.kernel.metrics.CounterLabel}), the registry
 * that allocates, retires and frees them ({@link io.multifactor.kernel.metrics.EngineCounters}), and the counters a fleet
 * exchange reports into ({@link io.multifactor.kernel.metrics.FleetCounters}), and the per-thread blocks that selections
 * and drops are counted into ({@link io.multifactor.kernel.metrics.SingleWriterCounterBlock}) with their aggregator
 * ({@link io.multifactor.kernel.metrics.PerThreadCounterBlocks}).
 * <p>
 * Counter values change atomically from any thread; a counter block is written by its owner thread only and added into
 * the counters by the refresh agent; allocation and retirement belong to the engine's lock holder.
 * Readers in this or another process read labels and values through an Agrona {@code CountersReader}.
 */
package io.multifactor.kernel.metrics;
