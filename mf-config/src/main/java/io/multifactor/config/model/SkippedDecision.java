package io.multifactor.config.model;

/**
 * A decision of a vLLM Semantic Router file that is not a {@code multi_factor} one, so it has no plan here.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name its name as the engine would know it ({@code RECIPE/DECISION} when it comes from a recipe other than
 *     {@code default}).
 * @param algorithmType its {@code algorithm.type} as written, or {@link #NO_ALGORITHM} when it has no {@code algorithm}.
 * @param path where it is, such as {@code recipes[0].routing.decisions[1]}.
 * @param line 1-based line where it starts.
 */
public record SkippedDecision(String name, String algorithmType, String path, int line)
{
    /** The {@link #algorithmType} of a decision without {@code algorithm:}. */
    public static final String NO_ALGORITHM = "none";
}
