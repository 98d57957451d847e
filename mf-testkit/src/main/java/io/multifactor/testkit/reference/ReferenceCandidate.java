package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;

import java.util.Map;
import java.util.Objects;

/**
 * One candidate of a finished selection: its signals as seen by the selection, why it was dropped (if it was), its
 * normalized factors and its score.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param model model name.
 * @param dropReason a {@link DropReason} code; {@link DropReason#NONE} for a survivor.
 * @param quality configured quality score, {@code null} when absent.
 * @param tpotMs observed TPOT percentile in milliseconds, {@code null} when not observed.
 * @param ttftMs observed TTFT percentile in milliseconds, {@code null} when not observed.
 * @param costPer1M configured prompt price, {@code null} when absent.
 * @param inflight in-flight count.
 * @param normalized factor label ({@code quality}, {@code latency}, {@code cost}, {@code load}) to its normalized value
 *     in [0, 1], higher is better; empty when the candidate was not scored.
 * @param score weighted score, {@code null} when the candidate was not scored.
 */
public record ReferenceCandidate(
    String model,
    int dropReason,
    Double quality,
    Double tpotMs,
    Double ttftMs,
    Double costPer1M,
    long inflight,
    Map<String, Double> normalized,
    Double score)
{
    /** Copies the normalized map. */
    public ReferenceCandidate
    {
        Objects.requireNonNull(model, "model");
        normalized = Map.copyOf(normalized);
    }

    /** @return the latency signal: the TPOT percentile when observed, else the TTFT percentile, else {@code null}. */
    public Double latencyMs()
    {
        return tpotMs != null ? tpotMs : ttftMs;
    }

    /** @return whether the candidate survived the exclusions and the SLO filter. */
    public boolean survived()
    {
        return dropReason == DropReason.NONE;
    }

    /** @return the drop reason label, such as {@code "tpot"}. */
    public String dropLabel()
    {
        return DropReason.label(dropReason);
    }
}
