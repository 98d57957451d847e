/**
 * The fleet exchange: {@link io.multifactor.kernel.fleet.FleetSignals} (per-model counts and latency intervals, keyed
 * by model name), the {@link io.multifactor.kernel.fleet.FleetExchange} a transport implements (Redis in
 * {@code mf-redis}, in memory in {@code mf-testkit}), and the {@link io.multifactor.kernel.fleet.FleetAgent} that runs
 * it beside an engine, which it reaches through {@link io.multifactor.kernel.fleet.FleetMember}.
 * <p>
 * Threading: everything here runs on the fleet agent's one thread; the engine's hot paths never call into it.
 */
package io.multifactor.kernel.fleet;
