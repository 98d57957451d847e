package io.multifactor.config.reliability;

import io.multifactor.api.Outcome;
import io.multifactor.api.Selection;

import java.util.Arrays;

/**
 * The configurations the reliability runs reload between, and the check that a selection came from one whole plan of
 * one of them (never a mix: candidates of one version with configured values of another).
 * <p>
 * This class is stateless and threadsafe.
 */
final class ReliabilityFixture
{
    static final String A = """
        models:
          - {name: a, quality_score: 0.9, pricing: {prompt_per_1m: 10.0}}
          - {name: b, quality_score: 0.5, pricing: {prompt_per_1m: 1.0}}
          - {name: c, quality_score: 0.1, pricing: {prompt_per_1m: 0.1}}
        decisions:
          - name: chat
            modelRefs: [{model: a}, {model: b}, {model: c}]
            algorithm:
              type: multi_factor
              multi_factor:
                weights: {quality: 0.4, latency: 0.2, cost: 0.2, load: 0.2}
                slo: {max_tpot_ms: 200, max_inflight: 50}
          - name: batch
            modelRefs: [{model: b}, {model: c}]
        signals: {latency_window: 1s, latency_refresh: 10ms, inflight_max_age: 10m}
        """;

    static final String B = """
        models:
          - {name: e, quality_score: 0.8, pricing: {prompt_per_1m: 3.0}}
          - {name: a, quality_score: 0.2, pricing: {prompt_per_1m: 9.0}}
          - {name: b, quality_score: 0.6, pricing: {prompt_per_1m: 2.0}}
        decisions:
          - name: chat
            modelRefs: [{model: e}, {model: a}, {model: b}]
            algorithm: {type: multi_factor, multi_factor: {on_no_candidates: first}}
          - name: extra
            modelRefs: [{model: e}]
        signals: {latency_window: 1s, latency_refresh: 10ms, inflight_max_age: 10m}
        """;

    static final String BAD = """
        models:
          - {name: a, quality_score: -1}
        decisions:
          - name: chat
            modelRefs: [{model: zz}]
        """;

    private ReliabilityFixture()
    {
    }

    /**
     * @param out a selection of decision {@code chat}.
     * @param a handle of model a; likewise b, c, e.
     * @return null when the selection is one whole plan of A or B, else what is wrong.
     */
    static String tornChat(final Selection out, final int a, final int b, final int c, final int e)
    {
        return torn(out, new int[][] {{a, b, c}, {e, a, b}}, new double[][] {{0.9, 0.5, 0.1}, {0.8, 0.2, 0.6}});
    }

    /**
     * @param out a selection of decision {@code batch}: one whole plan of A, or nothing (B has no batch).
     * @param b handle of model b.
     * @param c handle of model c.
     * @return null when whole, else what is wrong.
     */
    static String tornBatch(final Selection out, final int b, final int c)
    {
        if (out.candidateCount() == 0)
        {
            return out.outcome() == Outcome.FAILED ? null : "no candidates but outcome " + out.outcome();
        }
        return torn(out, new int[][] {{b, c}}, new double[][] {{0.5, 0.1}});
    }

    private static String torn(final Selection out, final int[][] versions, final double[][] qualities)
    {
        final int n = out.candidateCount();
        final int[] ids = new int[n];
        final double[] quality = new double[n];
        for (int i = 0; i < n; i++)
        {
            ids[i] = out.modelId(i);
            quality[i] = out.quality(i);
            if (out.inflight(i) < 0)
            {
                return "negative in-flight count " + out.inflight(i) + " of model " + ids[i];
            }
        }
        for (int v = 0; v < versions.length; v++)
        {
            if (Arrays.equals(ids, versions[v]))
            {
                if (!Arrays.equals(quality, qualities[v]))
                {
                    return "torn plan: candidates " + Arrays.toString(ids) + " with qualities " + Arrays.toString(quality);
                }
                if (out.hasSelection() && out.modelId(out.selectedIndex()) != out.selectedModel())
                {
                    return "selected model " + out.selectedModel() + " is not candidate " + out.selectedIndex();
                }
                return null;
            }
        }
        return "candidates of no version: " + Arrays.toString(ids);
    }
}
