/**
 * The engine's counters: the buffers that hold them in direct memory
 * ({@link io.multifactor.kernel.metrics.CounterBuffers}), the counters file they are copied to for other processes
 * ({@link io.multifactor.kernel.metrics.CountersFileLayout}, written by
 * {@link io.multifactor.kernel.metrics.CountersFileWriter}, read by
 * {@link io.multifactor.kernel.metrics.CountersFileReader}), their type ids and parseable labels
 * ({@link io.multifactor.kernel.metrics.CounterTypes}, {@link io.multifactor.kernel.metrics.CounterLabel}), the registry
 * that allocates, retires and frees them ({@link io.multifactor.kernel.metrics.EngineCounters}), and the counters a fleet
 * exchange reports into ({@link io.multifactor.kernel.metrics.FleetCounters}), and the per-thread blocks that selections
 * and drops are counted into ({@link io.multifactor.kernel.metrics.SingleWriterCounterBlock}) with their aggregator
 * ({@link io.multifactor.kernel.metrics.PerThreadCounterBlocks}).
 * <p>
 * Counter values change atomically from any thread; a counter block is written by its owner thread only and added into
 * the counters by the refresh agent; allocation and retirement belong to the engine's lock holder. Readers in this
 * process read labels and values through an Agrona {@code CountersReader}; another process reads a checked copy of the
 * counters file through {@link io.multifactor.kernel.metrics.CountersFileReader}.
 */
package io.multifactor.kernel.metrics;
