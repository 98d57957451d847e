/**
 * Prompts that share prefixes, for the simulator and the load generator alike: multi-turn sessions that resend their
 * history, long system prompts shared by many requests, and their arrivals in time order; each prompt as token segments
 * (for the simulator's block hashes) or as message text (for a real request).
 * <p>
 * Threading: the workload and the turns are immutable and threadsafe; a schedule is used by one thread.
 */
package io.multifactor.sim.prompt;
