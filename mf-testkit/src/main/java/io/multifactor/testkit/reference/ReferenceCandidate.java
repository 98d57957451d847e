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
 * @param costPer1M cost per 1M tokens under the cost mix (the prompt price by default), {@code null} when missing.
 * @param inflight in-flight count.
 * @param normalized factor label ({@code quality}, {@code latency}, {@code cost}, {@code load}) to its normalized value
 *     in [0, 1], higher is better; empty when the candidate was not scored.
 * @param score weighted score (lexicographic: its normalized value of the first priority factor), {@code null} when
 *     the candidate was not scored.
 * @param eliminatedBy lexicographic objective: the factor label that took this survivor out of the finalists,
 *     {@code null} for a finalist and for every candidate of a weighted decision.
 * @param tied whether this candidate was among the tied ones the winner was drawn from (weighted: score within
 *     {@code tie_band} of the best; lexicographic: a finalist).
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
    Double score,
    String eliminatedBy,
    boolean tied)
{
    /** Copies the normalized map. */
    public ReferenceCandidate
    {
        Objects.requireNonNull(model, "model");
        normalized = Map.copyOf(normalized);
    }

    /**
     * A candidate of a plain weighted selection: never eliminated by a factor, tie membership not recorded.
     *
     * @param model model name.
     * @param dropReason a {@link DropReason} code.
     * @param quality configured quality score, {@code null} when absent.
     * @param tpotMs observed TPOT percentile, {@code null} when not observed.
     * @param ttftMs observed TTFT percentile, {@code null} when not observed.
     * @param costPer1M cost per 1M tokens, {@code null} when missing.
     * @param inflight in-flight count.
     * @param normalized factor label to normalized value; empty when not scored.
     * @param score weighted score, {@code null} when not scored.
     */
    public ReferenceCandidate(
        final String model,
        final int dropReason,
        final Double quality,
        final Double tpotMs,
        final Double ttftMs,
        final Double costPer1M,
        final long inflight,
        final Map<String, Double> normalized,
        final Double score)
    {
        this(model, dropReason, quality, tpotMs, ttftMs, costPer1M, inflight, normalized, score, null, false);
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
