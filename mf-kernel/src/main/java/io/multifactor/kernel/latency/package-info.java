/**
 * Latency estimators ({@link io.multifactor.kernel.latency.LatencyEstimator}): per model and metric (TTFT, TPOT) the
 * rolling percentile window (a multi-writer recorder counting samples in microseconds into HdrHistogram's buckets, and
 * the ring of slices the refresh agent reads percentiles from) or Finagle's peak-EWMA.
 * <p>
 * Threading: recording is lock-free (the window's is wait-free) from any number of threads; rotating, draining,
 * merging and reading estimates belong to one thread at a time (the engine's refresh agent, under the engine's lock).
 */
package io.multifactor.kernel.latency;
