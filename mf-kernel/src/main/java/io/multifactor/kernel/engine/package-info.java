/**
 * The engine that ties plans, in-flight leases and latency windows together behind one object:
 * {@link io.multifactor.kernel.engine.MultiFactorEngine}, its {@link io.multifactor.kernel.engine.SignalSettings}, and
 * the {@link io.multifactor.kernel.engine.Tpot} helper.
 * <p>
 * Threading: select, record, begin/end and plan replacement are safe from any number of threads at once; the hot
 * paths are lock-free and allocation-free. Refresh runs on one thread at a time (the agent's, or the caller's).
 */
package io.multifactor.kernel.engine;
