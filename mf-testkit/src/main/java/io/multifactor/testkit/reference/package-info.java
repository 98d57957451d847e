/**
 * The plain reference implementation of a selection (the oracle of the tests and the baseline of the benchmarks):
 * docs/semantics.md written for clarity with objects, lists and maps, sort-based percentiles over raw samples,
 * and an adapter that runs the real kernel on the same input so both can be compared.
 * <p>
 * Threading: value types are immutable; {@link io.multifactor.testkit.reference.ReferenceRouter} serializes every call
 * with one lock; the static scorers are stateless.
 */
package io.multifactor.testkit.reference;
