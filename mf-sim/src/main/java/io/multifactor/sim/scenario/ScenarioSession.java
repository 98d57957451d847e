package io.multifactor.sim.scenario;

/**
 * A scenario's {@code session:}: the request carries a session key, and its entry in the decision's session table is
 * as stated (section 4.6 of the semantics): the model P that served it ({@code null}: the key has no entry yet), the
 * turns P has served and how long ago it was last seen.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param modelOrNull the entry's model P, or {@code null} when the key has no entry ({@code session: {}}).
 * @param turns {@code turns}, >= 1 (default 1).
 * @param idleMs {@code idle_ms}, >= 0 (default 0).
 */
public record ScenarioSession(LocatedName modelOrNull, long turns, long idleMs)
{
}
