/**
 * An in-memory fleet: {@link io.multifactor.sim.fleet.InMemoryFleet} plays the part of Redis for the replicas of
 * one process (the simulator, tests that need no server), with the same semantics: one publication per period, a
 * replica's counts expire 4 periods after its last publication, intervals are delivered once to every other replica.
 * <p>
 * Threading: the fleet is threadsafe; each {@link io.multifactor.sim.fleet.InMemoryFleetExchange} is used by its
 * replica's fleet agent, one thread at a time.
 */
package io.multifactor.sim.fleet;
