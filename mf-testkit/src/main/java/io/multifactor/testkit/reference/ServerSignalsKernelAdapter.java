package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Factor;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SignalCeilings;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.scoring.ScoringKernel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the real kernel on a {@link ServerSignalsCase}: compiles the decision with its six weights and the servers'
 * ceilings, publishes the seed observations and each candidate's queue, KV-cache use and stale flag
 * ({@link CandidateSignals#publishServerLoad}), and converts the selection into a {@link ReferenceResult} with all six
 * factors, to compare with {@link ServerSignalsReference}.
 * <p>
 * This class is stateless and threadsafe; it allocates freely (it is for tests).
 */
public final class ServerSignalsKernelAdapter
{
    private ServerSignalsKernelAdapter()
    {
    }

    /**
     * @param c the problem.
     * @return the kernel's selection.
     */
    public static ReferenceResult select(final ServerSignalsCase c)
    {
        return toResult(selection(c, true), c);
    }

    /**
     * @param c the problem.
     * @param publishServers whether to publish the servers' signals (false: the candidates' signals as an engine
     *     without server metrics has them).
     * @return the kernel's filled selection.
     */
    public static Selection selection(final ServerSignalsCase c, final boolean publishServers)
    {
        final ReferenceDecision decision = c.decision();
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = new String[decision.candidates().size()];
        for (int i = 0; i < names.length; i++)
        {
            final ReferenceModel model = decision.candidates().get(i);
            builder.model(model.name(), orNaN(model.quality()), orNaN(model.promptPer1M()), orNaN(model.completionPer1M()));
            names[i] = model.name();
        }
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
            .signalCeilings(new SignalCeilings(0L, c.maxQueue() == 0 ? Double.POSITIVE_INFINITY : c.maxQueue(),
                c.maxKvCache() == 0.0 ? Double.POSITIVE_INFINITY : c.maxKvCache(), c.whenStaleSaturated()))
            .percentile(decision.percentile())
            .policy(NoCandidatesPolicy.parse(decision.policy()))
            .add();
        final Plans plans = builder.build();
        final DecisionPlan plan = plans.decision(plans.decisionId(decision.name()));
        final Exclusions exclusions = new Exclusions();
        final CandidateSignals signals = KernelAdapter.signals(plans, plan, c.request(), exclusions);
        if (publishServers)
        {
            for (int i = 0; i < plan.candidateCount(); i++)
            {
                final String name = plans.modelName(plan.candidateModelId(i));
                signals.publishServerLoad(i, orNaN(c.queue().get(name)), orNaN(c.kvCache().get(name)),
                    c.stale().contains(name));
            }
        }
        final Selection selection = new Selection(plan.candidateCount());
        ScoringKernel.select(plan, signals, exclusions, selection);
        return selection;
    }

    private static ReferenceResult toResult(final Selection selection, final ServerSignalsCase c)
    {
        final List<ReferenceModel> models = c.decision().candidates();
        final List<ReferenceCandidate> candidates = new ArrayList<>();
        for (int i = 0; i < selection.candidateCount(); i++)
        {
            final Map<String, Double> normalized = new HashMap<>();
            final boolean scored = selection.dropReason(i) == DropReason.NONE && !Double.isNaN(selection.score(i));
            if (scored)
            {
                for (int f = 0; f < Factor.COUNT; f++)
                {
                    normalized.put(Factor.label(f), selection.normalized(i, f));
                }
            }
            candidates.add(new ReferenceCandidate(models.get(i).name(), selection.dropReason(i),
                orNull(selection.quality(i)), orNull(selection.tpotMs(i)), orNull(selection.ttftMs(i)),
                orNull(selection.costPer1M(i)), selection.inflight(i), normalized,
                scored ? selection.score(i) : null));
        }
        final double[] weights = new double[Factor.COUNT];
        for (int f = 0; f < Factor.COUNT; f++)
        {
            weights[f] = selection.weight(f);
        }
        return new ReferenceResult(c.decision().name(), selection.outcome(), selection.selectedIndex(),
            selection.selectedIndex() >= 0 ? models.get(selection.selectedIndex()).name() : null,
            ServerSignalsReference.factors(weights), candidates);
    }

    private static double orNaN(final Double value)
    {
        return value == null ? Double.NaN : value;
    }

    private static Double orNull(final double value)
    {
        return Double.isNaN(value) ? null : value;
    }
}
