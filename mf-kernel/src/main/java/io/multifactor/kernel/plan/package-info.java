/**
 * Compiled plans: each decision's candidates, configured signals, weights, floor, ceilings and ranking settings as flat primitive arrays, and the
 * immutable {@link io.multifactor.kernel.plan.Plans} snapshot that maps names to stable int handles.
 * <p>
 * Threading: plans are immutable once built and safe to share; a builder belongs to one thread.
 */
package io.multifactor.kernel.plan;
