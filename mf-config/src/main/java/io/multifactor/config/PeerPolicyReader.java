package io.multifactor.config;

import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.Problems;
import io.multifactor.kernel.plan.AlgorithmType;

import java.util.List;

/**
 * Reads the parameter blocks of the peers' policies in a decision's {@code algorithm:}, {@code algorithm: {type: T,
 * T: {params}}}, strictly: a block is read only beside its own {@code type} (another one is refused, located), and a
 * key its peer does not have is refused as unknown with the nearest valid one when plausibly a typo.
 * {@code litellm_simple_shuffle}, {@code litellm_least_busy} and {@code aibrix_least_request} take no parameters at
 * model level (their peers' weights and limits are per deployment), so their blocks are empty or absent.
 * <p>
 * This class is stateless and threadsafe.
 */
final class PeerPolicyReader
{
    /** The keys of each peer's block, indexed by {@code type - AlgorithmType.FIRST_PEER}. */
    private static final List<List<String>> KEYS = List.of(List.of(), List.of(), List.of());

    private PeerPolicyReader()
    {
    }

    /**
     * @param algorithm the decision's {@code algorithm:} mapping.
     * @param problems where refusals go.
     * @param type the {@link AlgorithmType} code read from its {@code type}, -1 when it was refused.
     */
    static void read(final MappingReader algorithm, final Problems problems, final int type)
    {
        for (int peer = AlgorithmType.FIRST_PEER; AlgorithmType.isPeer(peer); peer++)
        {
            final String label = AlgorithmType.label(peer);
            if (!algorithm.has(label))
            {
                continue;
            }
            if (peer != type)
            {
                problems.error(algorithm.value(label), algorithm.path(label),
                    "the block " + label + " is read only with type: " + label + " (type is " +
                    (type < 0 ? "refused" : AlgorithmType.label(type)) + ')');
                continue;
            }
            algorithm.optionalMapping(label, KEYS.get(peer - AlgorithmType.FIRST_PEER));
        }
    }
}
