/**
 * JMH benchmarks of every hot path (select, record, begin/end, refresh, and select under contention), the baselines
 * they are compared with in the same run (the mf-testkit reference implementation and a hand-written loop over
 * primitive arrays), the pre-built data sets they rotate through, and the runner that prints budgets and ratios.
 * <p>
 * Threading: each benchmark state follows its JMH {@code Scope}; the fixtures are built on one thread in
 * {@code @Setup} and only read afterwards; the report classes are used by the runner thread alone.
 */
package io.multifactor.bench;
