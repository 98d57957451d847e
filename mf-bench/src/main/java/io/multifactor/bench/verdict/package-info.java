/**
 * Verdicts from pooled forks: the release set's goals, the fork means of a verdict run's JMH results, their 95%
 * bootstrap intervals and the Markdown report that {@code mf-bench/verdicts.sh} prints.
 * <p>
 * Threading: the report runs on one thread; the goal and interval values are immutable.
 */
package io.multifactor.bench.verdict;
