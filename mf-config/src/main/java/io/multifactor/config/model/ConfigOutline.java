package io.multifactor.config.model;

import java.util.List;

/**
 * What a configuration file held beyond the models and decisions this library runs: its format, and for a vLLM
 * Semantic Router file the decisions it skipped (not {@code multi_factor}) and the top-level sections it ignored.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param format the kind of file.
 * @param skippedDecisions decisions without a plan here, in file order.
 * @param ignoredSections paths of the top-level sections not read, in file order (under {@code config.} for the
 *     configuration of a Helm values file, whose other keys are listed by their name).
 */
public record ConfigOutline(ConfigFormat format, List<SkippedDecision> skippedDecisions, List<String> ignoredSections)
{
    /** The outline of a file in this library's own format: nothing skipped, nothing ignored. */
    public static final ConfigOutline MULTI_FACTOR = new ConfigOutline(ConfigFormat.MULTI_FACTOR, List.of(), List.of());

    /**
     * @param format the kind of file.
     * @param skippedDecisions decisions without a plan here; copied.
     * @param ignoredSections paths of the top-level sections not read; copied.
     */
    public ConfigOutline
    {
        skippedDecisions = List.copyOf(skippedDecisions);
        ignoredSections = List.copyOf(ignoredSections);
    }
}
