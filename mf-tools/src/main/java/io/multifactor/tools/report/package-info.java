/**
 * What {@code bin/mf simulate} writes for people: the per-interval text lines and summary, the CSV rows and the PNG
 * chart (JFreeChart) of a {@link io.multifactor.sim.SimulationReport}.
 * <p>
 * Threading: every class here is a stateless set of static methods; each call works on its own arguments.
 */
package io.multifactor.tools.report;
