/**
 * The engine that ties plans, in-flight leases and latency windows together behind one object: the facade
 * {@link io.multifactor.kernel.engine.MultiFactorEngine} (with its builder), its
 * {@link io.multifactor.kernel.engine.SignalSettings}, the {@link io.multifactor.kernel.engine.Tpot} helper, and the
 * package-private classes with one job each behind it: selection, reserve on select, the ends of leases and their
 * results, explain, samples, plan installation and replacement, publication of signals, the server configuration,
 * the ejection override, the refresh cycle, the counter layout and labels, the fleet bridge, and the readout of plans,
 * handles and counts ({@code EngineReadout}). The facade holds these parts in final fields and declares every public
 * method itself, as a one-line delegation to one part.
 * <p>
 * Threading: select, record, begin/end and plan replacement are safe from any number of threads at once; the hot
 * paths are lock-free and allocation-free. Refresh runs on one thread at a time (the agent's, or the caller's).
 */
package io.multifactor.kernel.engine;
