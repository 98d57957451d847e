/**
 * Ejection of failing models (outlier detection): per model, a state machine over the results that callers report
 * when they end a lease ({@link io.multifactor.kernel.reliability.ModelEjection}), its state packed in one word of a
 * shared table that {@code select} reads with one plain load ({@link io.multifactor.kernel.reliability.EjectionTable}).
 * <p>
 * Threading: reporting results, claiming a half-open model's probe and reading the words are lock-free and
 * allocation-free from any number of threads; every transition is one compare-and-swap on the model's word.
 */
package io.multifactor.kernel.reliability;
