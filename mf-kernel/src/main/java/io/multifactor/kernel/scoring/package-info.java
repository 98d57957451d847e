/**
 * The scoring kernel: the SLO filter, the no-candidates policies, min-max normalization and weighted scoring of one
 * decision, over a plan's primitive arrays and a caller-owned {@link io.multifactor.api.Selection}.
 * <p>
 * Threading: stateless; safe from any number of threads as long as each passes its own {@code Selection}.
 */
package io.multifactor.kernel.scoring;
