/**
 * Sessions: the per-decision table of session key -> (previous model, turns, last seen) and the rules that keep a
 * request on the model that served its session.
 * <p>
 * Threading: the table is read and updated by any number of selecting threads at once without a lock (a per-set
 * sequence word, claimed by compare-and-set, never waited on); the rules are stateless.
 */
package io.multifactor.kernel.session;
