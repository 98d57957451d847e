/**
 * The traffic simulator core behind {@code bin/mf simulate}: a discrete-event simulation that drives the real engine on
 * a simulated clock, the traffic profile and its loader, and the per-interval and summary report it produces (the
 * text, CSV and chart writers live in the {@code mf-tools} module).
 * <p>
 * Threading: a simulation runs on the calling thread and owns its engine and clock; profiles, rows and reports are
 * immutable and may be shared.
 */
package io.multifactor.sim;
