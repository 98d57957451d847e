/**
 * The comparison that decides: scenarios (a simulator profile, its configuration and its recommended
 * {@code multi_factor} configuration), the load knee found by bisection, and every policy x seed at the knee in the
 * simulator, with its figures as ranges over the seeds ({@code bin/mf compare --suite}; the tables and charts are
 * written by the {@code mf-tools} module).
 * <p>
 * Threading: a suite runs its simulations on a pool of threads, each simulation on one thread with its own engine;
 * scenarios, knees and results are immutable once returned.
 */
package io.multifactor.sim.suite;
