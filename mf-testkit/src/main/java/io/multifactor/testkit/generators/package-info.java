/**
 * QuickTheories generators of selection problems ({@link io.multifactor.testkit.reference.ReferenceCase}, the one
 * problem type of the oracle) for property tests of anything that selects models, biased towards the edge cases of
 * docs/semantics.md (one or 64 candidates, ties, missing signals, zero and negative weights, every candidate dropped or
 * excluded, free models, tiny and huge values, all three policies), and covering every key at once.
 * <p>
 * Threading: generators are stateless and may be shared; QuickTheories drives each from one thread.
 */
package io.multifactor.testkit.generators;
