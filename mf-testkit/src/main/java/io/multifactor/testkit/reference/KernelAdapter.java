package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.TieBreak;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.scoring.ScoringKernel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the real kernel on the reference's input: compiles the decision with {@link PlansBuilder}, publishes the
 * observations as standalone {@link CandidateSignals}, calls {@link ScoringKernel#select} and converts the selection
 * back into a {@link ReferenceResult}, so tests can compare the two implementations field by field.
 * <p>
 * This class is stateless and threadsafe; it allocates freely (it is for tests, not for the request path).
 */
public final class KernelAdapter
{
    private KernelAdapter()
    {
    }

    /**
     * @param decision the decision as configured.
     * @return a snapshot holding that decision and its candidate models (in candidate order, handles from 0).
     */
    public static Plans plans(final ReferenceDecision decision)
    {
        return plans(decision, ReferenceExtensions.NONE);
    }

    /**
     * @param decision the decision as configured.
     * @param extensions its extension keys.
     * @return a snapshot holding that decision and its candidate models (in candidate order, handles from 0).
     */
    public static Plans plans(final ReferenceDecision decision, final ReferenceExtensions extensions)
    {
        final PlansBuilder builder = new PlansBuilder();
        final String[] names = addModels(builder, decision);
        final PlansBuilder.DecisionSpec spec = builder.decision(decision.name())
            .candidates(names)
            .weights(decision.qualityWeight(), decision.latencyWeight(), decision.costWeight(), decision.loadWeight())
            .slo(decision.maxTpotMs(), decision.maxTtftMs(), decision.maxCostPer1M(), decision.maxInflight())
            .percentile(decision.percentile())
            .policy(NoCandidatesPolicy.parse(decision.policy()))
            .minQuality(extensions.minQuality())
            .latencyMetric(LatencyMetric.parse(extensions.latencyMetric()))
            .costMix(extensions.costMixPrompt(), extensions.costMixCompletion())
            .tieBand(extensions.tieBand())
            .tieBreak(TieBreak.parse(extensions.tieBreak()));
        if (extensions.lexicographic())
        {
            final int[] priority = new int[extensions.priority().size()];
            for (int i = 0; i < priority.length; i++)
            {
                priority[i] = Factor.parse(extensions.priority().get(i));
            }
            spec.lexicographic(extensions.tolerance(), priority);
        }
        spec.add();
        return builder.build();
    }

    /**
     * @param builder the plans being built.
     * @param decision the decision whose candidates become models (quality and prices; NaN where absent).
     * @return the candidates' names, in order.
     */
    static String[] addModels(final PlansBuilder builder, final ReferenceDecision decision)
    {
        final String[] names = new String[decision.candidates().size()];
        for (int i = 0; i < names.length; i++)
        {
            final ReferenceModel model = decision.candidates().get(i);
            builder.model(model.name(), orNaN(model.quality()), orNaN(model.promptPer1M()), orNaN(model.completionPer1M()));
            names[i] = model.name();
        }
        return names;
    }

    /**
     * Publishes the request's observations as the signals of the plan's candidates, and its exclusions.
     *
     * @param plans snapshot from {@link #plans(ReferenceDecision)}.
     * @param plan the decision's plan.
     * @param request observations and exclusions.
     * @param exclusions filled with the handles of the models the request excludes.
     * @return the candidates' signals, in candidate order.
     */
    public static CandidateSignals signals(
        final Plans plans, final DecisionPlan plan, final ReferenceRequest request, final Exclusions exclusions)
    {
        final int n = plan.candidateCount();
        final CandidateSignals signals = CandidateSignals.standalone(n);
        for (int i = 0; i < n; i++)
        {
            final int modelId = plan.candidateModelId(i);
            final String name = plans.modelName(modelId);
            final ReferenceObservation observation = request.observation(name);
            signals.publishLatencyMs(i, orNaN(observation.tpotMs()), orNaN(observation.ttftMs()));
            signals.inflight(i, observation.inflight());
            if (request.excluded().contains(name))
            {
                exclusions.add(modelId);
            }
        }
        return signals;
    }

    /**
     * Runs the kernel.
     *
     * @param decision the decision as configured.
     * @param request observations and exclusions.
     * @return the kernel's selection as a {@link ReferenceResult}.
     */
    public static ReferenceResult select(final ReferenceDecision decision, final ReferenceRequest request)
    {
        final Plans plans = plans(decision);
        final DecisionPlan plan = plans.decision(plans.decisionId(decision.name()));
        final Selection selection = new Selection(plan.candidateCount());
        final Exclusions exclusions = new Exclusions();
        ScoringKernel.select(plan, signals(plans, plan, request, exclusions), exclusions, selection);
        return toResult(plans, plan, selection);
    }

    /**
     * Runs the kernel with the extension keys, through a {@link Request} carrying the request's exclusions and token
     * counts and a generator seeded with {@code seed}.
     *
     * @param decision the decision as configured.
     * @param extensions its extension keys.
     * @param request observations, exclusions and token counts.
     * @param seed seed of the tie-break generator.
     * @return the kernel's selection as a {@link ReferenceResult}, with each survivor's eliminating factor.
     */
    public static ReferenceResult select(
        final ReferenceDecision decision, final ReferenceExtensions extensions, final ReferenceRequest request,
        final long seed)
    {
        final Plans plans = plans(decision, extensions);
        final DecisionPlan plan = plans.decision(plans.decisionId(decision.name()));
        return toResult(plans, plan, selection(plans, plan, request, seed, false));
    }

    /**
     * Runs the kernel as {@link #select(ReferenceDecision, ReferenceExtensions, ReferenceRequest, long)} does, on
     * signals sealed after their publication ({@link CandidateSignals#seal}) or not.
     *
     * @param decision the decision as configured.
     * @param extensions its extension keys.
     * @param request observations, exclusions and token counts.
     * @param seed seed of the tie-break generator.
     * @param seal whether to seal the signals before selecting.
     * @return the kernel's filled selection.
     */
    public static Selection selection(
        final ReferenceDecision decision, final ReferenceExtensions extensions, final ReferenceRequest request,
        final long seed, final boolean seal)
    {
        final Plans plans = plans(decision, extensions);
        return selection(plans, plans.decision(plans.decisionId(decision.name())), request, seed, seal);
    }

    private static Selection selection(
        final Plans plans, final DecisionPlan plan, final ReferenceRequest request, final long seed, final boolean seal)
    {
        final Selection selection = new Selection(plan.candidateCount());
        final Request engineRequest = request(plans, request).seed(seed);
        final CandidateSignals signals = signals(plans, plan, request, new Exclusions());
        if (seal)
        {
            signals.seal(plan);
        }
        ScoringKernel.select(plan, signals, engineRequest.exclusions(), engineRequest, selection);
        return selection;
    }

    /**
     * @param plans snapshot from {@link #plans(ReferenceDecision, ReferenceExtensions)}.
     * @param request the reference request.
     * @return the same request for the engine: exclusions by handle, token counts when given.
     */
    public static Request request(final Plans plans, final ReferenceRequest request)
    {
        final Request engineRequest = new Request();
        for (final String name : request.excluded())
        {
            engineRequest.exclude(plans.modelId(name));
        }
        if (request.promptTokens() != null)
        {
            engineRequest.promptTokens(request.promptTokens());
        }
        if (request.maxOutputTokens() != null)
        {
            engineRequest.maxOutputTokens(request.maxOutputTokens());
        }
        return engineRequest;
    }

    /**
     * Converts a filled selection; NaN becomes {@code null}.
     *
     * @param plans the snapshot.
     * @param plan the decision's plan.
     * @param selection a selection the kernel filled.
     * @return the same content as a {@link ReferenceResult}.
     */
    public static ReferenceResult toResult(final Plans plans, final DecisionPlan plan, final Selection selection)
    {
        return toResult(plans, plan, selection, Factor.SEED_COUNT);
    }

    /**
     * Converts a filled selection; NaN becomes {@code null}.
     *
     * @param plans the snapshot.
     * @param plan the decision's plan.
     * @param selection a selection the kernel filled.
     * @param factorCount how many factors to report: {@link Factor#SEED_COUNT} or {@link Factor#COUNT}.
     * @return the same content as a {@link ReferenceResult}.
     */
    static ReferenceResult toResult(
        final Plans plans, final DecisionPlan plan, final Selection selection, final int factorCount)
    {
        final List<ReferenceCandidate> candidates = new ArrayList<>();
        for (int i = 0; i < selection.candidateCount(); i++)
        {
            final Map<String, Double> normalized = new HashMap<>();
            final boolean scored = selection.dropReason(i) == DropReason.NONE && !Double.isNaN(selection.score(i));
            if (scored)
            {
                for (int f = 0; f < factorCount; f++)
                {
                    normalized.put(Factor.label(f), selection.normalized(i, f));
                }
            }
            candidates.add(new ReferenceCandidate(
                plans.modelName(selection.modelId(i)),
                selection.dropReason(i),
                orNull(selection.quality(i)),
                orNull(selection.tpotMs(i)),
                orNull(selection.ttftMs(i)),
                orNull(selection.costPer1M(i)),
                selection.inflight(i),
                normalized,
                scored ? selection.score(i) : null,
                selection.eliminatedBy(i) == Selection.NOT_ELIMINATED ? null : Factor.label(selection.eliminatedBy(i)),
                false));
        }
        final double[] weights = new double[factorCount];
        for (int f = 0; f < factorCount; f++)
        {
            weights[f] = selection.weight(f);
        }
        return new ReferenceResult(
            plan.name(),
            selection.outcome(),
            selection.selectedIndex(),
            selection.hasSelection() ? plans.modelName(selection.selectedModel()) : null,
            ReferenceScorer.factorMap(weights, factorCount),
            candidates);
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
