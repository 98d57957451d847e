package io.multifactor.testkit.reference;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Factor;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.LoadMetric;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SignalCeilings;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.scoring.ScoringKernel;


/**
 * Runs the real kernel on a {@link LoadSignalsCase}: compiles the decision with its six weights, its
 * {@code load_metric}, {@code max_inflight_tokens} and the servers' ceilings, publishes the seed observations, each
 * candidate's in-flight tokens ({@link CandidateSignals#publishInflightTokens}) and its queue, KV-cache use and stale
 * flag ({@link CandidateSignals#publishServerLoad}), and converts the selection into a {@link ReferenceResult} with
 * all six factors, to compare with {@link ReferenceScorer#select(LoadSignalsCase)}.
 * <p>
 * This class is stateless and threadsafe; it allocates freely (it is for tests).
 */
public final class LoadSignalsKernelAdapter
{
    private LoadSignalsKernelAdapter()
    {
    }

    /**
     * @param c the problem.
     * @return the kernel's selection.
     */
    public static ReferenceResult select(final LoadSignalsCase c)
    {
        final Plans plans = plans(c);
        final DecisionPlan plan = plans.decision(plans.decisionId(c.decision().name()));
        return KernelAdapter.toResult(plans, plan, selection(plans, plan, c, true, false, null, null), Factor.COUNT);
    }

    /**
     * @param c the problem.
     * @param publishLoad whether to publish the servers' signals and the in-flight tokens (false: the candidates'
     *     signals as an engine without server metrics nor token counts has them).
     * @return the kernel's filled selection.
     */
    public static Selection selection(final LoadSignalsCase c, final boolean publishLoad)
    {
        final Plans plans = plans(c);
        return selection(plans, plans.decision(plans.decisionId(c.decision().name())), c, publishLoad, false, null,
            null);
    }

    /**
     * The kernel's selection with the servers' signals and the in-flight tokens published; sealed after their
     * publication ({@link CandidateSignals#seal}) or not, and with the in-flight counts and tokens then set to
     * {@code inflightOrNull} and {@code tokensOrNull} (in candidate order) when given: so a seal's selections can be
     * compared with the full loops' on the same values, the counts having moved since the seal.
     *
     * @param c the problem.
     * @param seal whether to seal the signals once published.
     * @param inflightOrNull in-flight counts set after the seal, or null for the problem's.
     * @param tokensOrNull in-flight tokens set after the seal (with {@code inflightOrNull}), or null for the problem's.
     * @return the kernel's filled selection.
     */
    public static Selection sealableSelection(
        final LoadSignalsCase c, final boolean seal, final long[] inflightOrNull, final long[] tokensOrNull)
    {
        final Plans plans = plans(c);
        return selection(plans, plans.decision(plans.decisionId(c.decision().name())), c, true, seal, inflightOrNull,
            tokensOrNull);
    }

    /**
     * @param c the problem.
     * @return the selection of {@link #sealableSelection} on sealed signals with the problem's in-flight counts, as a
     *     {@link ReferenceResult}.
     */
    public static ReferenceResult sealedResult(final LoadSignalsCase c)
    {
        final Plans plans = plans(c);
        final DecisionPlan plan = plans.decision(plans.decisionId(c.decision().name()));
        return KernelAdapter.toResult(plans, plan, selection(plans, plan, c, true, true, null, null),
            Factor.COUNT);
    }

    // The problem's observations published; then, when publishLoad, the servers' signals and the in-flight tokens;
    // sealed when asked, and the in-flight counts and tokens set after that when given.
    private static Selection selection(
        final Plans plans, final DecisionPlan plan, final LoadSignalsCase c, final boolean publishLoad,
        final boolean seal, final long[] inflightOrNull, final long[] tokensOrNull)
    {
        final Exclusions exclusions = new Exclusions();
        final CandidateSignals signals = KernelAdapter.signals(plans, plan, c.request(), exclusions);
        for (int i = 0; publishLoad && i < plan.candidateCount(); i++)
        {
            final String name = plans.modelName(plan.candidateModelId(i));
            signals.publishServerLoad(i, orNaN(c.queue().get(name)), orNaN(c.kvCache().get(name)),
                c.stale().contains(name));
            signals.publishInflightTokens(i, c.request().observation(name).inflightTokens());
        }
        if (seal)
        {
            signals.seal(plan);
        }
        if (inflightOrNull != null)
        {
            for (int i = 0; i < plan.candidateCount(); i++)
            {
                signals.inflight(i, inflightOrNull[i]);
                if (tokensOrNull != null)
                {
                    signals.publishInflightTokens(i, tokensOrNull[i]);
                }
            }
        }
        final Selection selection = new Selection(plan.candidateCount());
        ScoringKernel.select(plan, signals, exclusions, selection);
        return selection;
    }

    private static Plans plans(final LoadSignalsCase c)
    {
        final ReferenceDecision decision = c.decision();
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = KernelAdapter.addModels(builder, decision);
        final double[] weights = new double[Factor.COUNT];
        weights[Factor.QUALITY] = decision.qualityWeight();
        weights[Factor.LATENCY] = decision.latencyWeight();
        weights[Factor.COST] = decision.costWeight();
        weights[Factor.LOAD] = decision.loadWeight();
        weights[Factor.QUEUE] = c.queueWeight();
        weights[Factor.KV_CACHE] = c.kvCacheWeight();
        builder.decision(decision.name())
            .candidates(names)
            .weights(weights)
            .slo(decision.maxTpotMs(), decision.maxTtftMs(), decision.maxCostPer1M(), decision.maxInflight())
            .loadMetric(c.tokenLoad() ? LoadMetric.TOKENS : LoadMetric.REQUESTS)
            .signalCeilings(new SignalCeilings(c.maxInflightTokens(), c.maxQueue() == 0 ? Double.POSITIVE_INFINITY :
                c.maxQueue(), c.maxKvCache() == 0.0 ? Double.POSITIVE_INFINITY : c.maxKvCache(), c.whenStaleSaturated()))
            .percentile(decision.percentile())
            .policy(NoCandidatesPolicy.parse(decision.policy()))
            .add();
        return builder.build();
    }

    private static double orNaN(final Double value)
    {
        return value == null ? Double.NaN : value;
    }
}
