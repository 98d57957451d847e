/**
 * The open-loop load generator of {@code bin/mf load} and the policy comparison: seeded Poisson arrivals of streamed
 * OpenAI requests against a gateway or a server, per request TTFT, TPOT, status and serving model, and their summary
 * (percentiles, errors, SLO attainment) per model and overall.
 * <p>
 * Threading: a run's requests live on one Vert.x event loop; results are handed over once the run has ended.
 */
package io.multifactor.sim.load;
