/**
 * Why the engine chose what it chose: {@link io.multifactor.kernel.explain.Explanation}, a readable record of one
 * selection built off the hot path by {@code MultiFactorEngine.explain}.
 * <p>
 * Threading: records are immutable and may be shared between threads.
 */
package io.multifactor.kernel.explain;
