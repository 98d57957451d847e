/**
 * Clocks for tests and simulations: a {@link io.multifactor.kernel.clock.ManualClock} that only moves when told, to
 * inject into the engine so every test that involves time is deterministic.
 * <p>
 * Threading: a manual clock may be read from any thread; one thread (the test or the simulator) moves it.
 */
package io.multifactor.kernel.clock;
