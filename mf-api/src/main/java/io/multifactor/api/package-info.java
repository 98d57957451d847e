/**
 * Public types a router uses: int handles, outcome and drop-reason codes, the caller-owned {@link io.multifactor.api.Selection}
 * and {@link io.multifactor.api.Exclusions}, configuration errors, and the signal-recording interfaces.
 * <p>
 * Threading: the code classes are stateless; a {@code Selection} or {@code Exclusions} belongs to one thread at a time.
 */
package io.multifactor.api;
