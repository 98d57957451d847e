/**
 * Latency windows: per model and metric (TTFT, TPOT) a multi-writer recorder that counts samples in microseconds into
 * HdrHistogram's buckets, and the rolling window of slices the refresh agent keeps and reads percentiles from.
 * <p>
 * Threading: recording is wait-free from any number of threads; rotating, draining, merging and reading percentiles
 * belong to one thread at a time (the engine's refresh agent, under the engine's refresh lock).
 */
package io.multifactor.kernel.latency;
