/**
 * Scenario files: the observations for one request (decision, exclusions, latency samples, in-flight counts), read
 * with the same located errors as configurations, for {@code bin/mf explain} and for tests.
 * <p>
 * Threading: loading is stateless and threadsafe; scenarios are immutable.
 */
package io.multifactor.sim.scenario;
