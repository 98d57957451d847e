/**
 * Public types a router uses: int handles, outcome and drop-reason codes, the caller-owned {@link io.multifactor.api.Selection}
 * and {@link io.multifactor.api.Exclusions}, the caller-owned per-request input
 * {@link io.multifactor.api.Request}, objective and latency-metric codes, configuration errors, and the signal-recording interfaces.
 * <p>
 * Threading: the code classes are stateless; a {@code Selection}, {@code Request} or {@code Exclusions} belongs to one thread at a time.
 */
package io.multifactor.api;
