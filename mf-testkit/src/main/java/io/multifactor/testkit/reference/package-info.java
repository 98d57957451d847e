/**
 * The plain reference implementation of a selection (the oracle of the tests and the baseline of the benchmarks): one
 * problem type covering every key ({@link io.multifactor.testkit.reference.ReferenceCase}), one scorer written from the
 * documented rules with objects, lists and maps ({@link io.multifactor.testkit.reference.ReferenceScorer}), one adapter
 * that runs the real kernel on the same problem ({@link io.multifactor.testkit.reference.KernelAdapter}), and the plain
 * references of the signal sources: sort-based percentiles, peak-EWMA, ejection, and a router over raw samples.
 * <p>
 * Threading: value types are immutable; {@link io.multifactor.testkit.reference.ReferenceRouter} serializes every call
 * with one lock; the static scorers are stateless; {@link io.multifactor.testkit.reference.ReferenceEjection} is not
 * threadsafe.
 */
package io.multifactor.testkit.reference;
