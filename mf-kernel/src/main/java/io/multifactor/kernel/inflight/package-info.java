/**
 * In-flight leases: the fixed table of leases that lets each request be counted out exactly once
 * ({@link io.multifactor.kernel.inflight.LeaseTable}: one cache line per claim, each thread probing from its own home
 * line), counting into an in-flight counter at a value offset of the engine's counter buffers.
 * <p>
 * Threading: acquiring and releasing leases is lock-free and allocation-free from any number of threads; sweeping stale
 * leases belongs to one thread at a time (the engine's refresh).
 */
package io.multifactor.kernel.inflight;
