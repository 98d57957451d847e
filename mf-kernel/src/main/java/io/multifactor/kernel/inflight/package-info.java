/**
 * In-flight counts: one Agrona counter per model in a {@link org.agrona.concurrent.status.CountersManager} over direct
 * or memory-mapped memory ({@link io.multifactor.kernel.inflight.InflightCounters}), and the fixed table of leases that
 * lets each request be counted out exactly once ({@link io.multifactor.kernel.inflight.LeaseTable}).
 * <p>
 * Threading: acquiring, releasing and reading counts is lock-free and allocation-free from any number of threads;
 * allocating counters and sweeping stale leases belong to one thread at a time (the engine's refresh or reload).
 */
package io.multifactor.kernel.inflight;
