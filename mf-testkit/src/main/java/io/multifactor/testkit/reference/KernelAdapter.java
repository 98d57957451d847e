package io.multifactor.testkit.reference;

import io.multifactor.api.Capability;
import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.LoadMetric;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Pick;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.RequestRules;
import io.multifactor.kernel.plan.SignalCeilings;
import io.multifactor.kernel.plan.TieBreak;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.scoring.ScoringKernel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the real kernel on a {@link ReferenceCase}, so that each test compares the kernel with {@link ReferenceScorer}
 * through one path: compiles the decision with every key ({@link PlansBuilder}; models get handles from 0 in candidate
 * order), publishes the observations as standalone {@link CandidateSignals} (latencies and in-flight counts always;
 * the servers' queue, KV-cache use and stale flag when a candidate has one; in-flight tokens when a candidate has some
 * or the decision reads them; every candidate's ejection when one is ejected), calls {@link ScoringKernel#select} with a {@link Request} carrying the exclusions,
 * token counts, cached shares ({@code prefix}) and seed, and converts the selection back into a {@link ReferenceResult}.
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
        return plans(decision, ReferenceEligibility.NONE);
    }

    /**
     * @param decision the decision as configured.
     * @param eligibility the models' context windows and capabilities, the default output tokens and the admission.
     * @return a snapshot holding that decision and its candidate models (in candidate order, handles from 0).
     */
    public static Plans plans(final ReferenceDecision decision, final ReferenceEligibility eligibility)
    {
        final ReferenceExtensions keys = decision.extensions();
        final PlansBuilder builder = new PlansBuilder().defaultOutputTokens(eligibility.defaultOutputTokens());
        final String[] names = new String[decision.candidates().size()];
        for (int i = 0; i < names.length; i++)
        {
            final ReferenceModel model = decision.candidates().get(i);
            builder.model(model.name(), orNaN(model.quality()), orNaN(model.promptPer1M()), orNaN(model.completionPer1M()));
            if (model.cachedPromptPer1M() != null)
            {
                builder.cachedPromptPrice(model.name(), model.cachedPromptPer1M());
            }
            names[i] = model.name();
            final Long window = eligibility.contextWindows().get(model.name());
            final Integer capabilities = eligibility.capabilities().get(model.name());
            if (window != null || capabilities != null)
            {
                builder.eligibility(model.name(), window == null ? RequestRules.NO_CONTEXT_WINDOW : window,
                    capabilities == null ? Capability.ALL : capabilities);
            }
        }
        final double[] weights = new double[Factor.COUNT];
        for (int f = 0; f < Factor.COUNT; f++)
        {
            weights[f] = decision.weight(f);
        }
        final PlansBuilder.DecisionSpec spec = builder.decision(decision.name())
            .candidates(names)
            .weights(weights)
            .slo(decision.maxTpotMs(), decision.maxTtftMs(), decision.maxCostPer1M(), decision.maxInflight())
            .percentile(decision.percentile())
            .policy(NoCandidatesPolicy.parse(decision.policy()))
            .admission(eligibility.sheddableAbove())
            .minQuality(keys.minQuality())
            .latencyMetric(LatencyMetric.parse(keys.latencyMetric()))
            .costMix(keys.costMixPrompt(), keys.costMixCompletion())
            .tieBand(keys.tieBand())
            .tieBreak(TieBreak.parse(keys.tieBreak()))
            .pick(Pick.parse(keys.pick()))
            .loadMetric(keys.tokenLoad() ? LoadMetric.TOKENS : LoadMetric.REQUESTS)
            .signalCeilings(new SignalCeilings(keys.maxInflightTokens(),
                keys.maxQueue() == 0 ? Double.POSITIVE_INFINITY : keys.maxQueue(),
                keys.maxKvCache() == 0.0 ? Double.POSITIVE_INFINITY : keys.maxKvCache(), keys.whenStaleSaturated()));
        if (keys.lexicographic())
        {
            final int[] priority = new int[keys.priority().size()];
            for (int i = 0; i < priority.length; i++)
            {
                priority[i] = Factor.parse(keys.priority().get(i));
            }
            spec.lexicographic(keys.tolerance(), priority);
        }
        spec.add();
        return builder.build();
    }

    /**
     * Runs the kernel.
     *
     * @param c the problem.
     * @return the kernel's selection as a {@link ReferenceResult}, with each survivor's eliminating factor.
     */
    public static ReferenceResult select(final ReferenceCase c)
    {
        final Plans plans = plans(c.decision(), c.eligibility());
        final DecisionPlan plan = plans.decision(plans.decisionId(c.decision().name()));
        return toResult(plans, plan, selection(plans, plan, c, true, false, null, null), c.reportedFactors());
    }

    /**
     * Runs the kernel through its entry without a request (exclusions only: no token counts, the thread's generator).
     *
     * @param c the problem.
     * @return the kernel's selection as a {@link ReferenceResult}.
     */
    public static ReferenceResult selectWithoutRequest(final ReferenceCase c)
    {
        final Plans plans = plans(c.decision(), c.eligibility());
        final DecisionPlan plan = plans.decision(plans.decisionId(c.decision().name()));
        return toResult(plans, plan, selection(plans, plan, c, false, false, null, null), c.reportedFactors());
    }

    /**
     * The kernel's selection on signals sealed after their publication ({@link CandidateSignals#seal}) or not.
     *
     * @param c the problem.
     * @param seal whether to seal the signals before selecting.
     * @return the kernel's filled selection.
     */
    public static Selection selection(final ReferenceCase c, final boolean seal)
    {
        return selection(c, seal, null, null);
    }

    /**
     * The kernel's selection, sealed after the publication or not, with the in-flight counts and tokens then set to
     * {@code inflightOrNull} and {@code tokensOrNull} (in candidate order) when given: so a seal's selections can be
     * compared with the full loops' on the same values, the counts having moved since the seal.
     *
     * @param c the problem.
     * @param seal whether to seal the signals once published.
     * @param inflightOrNull in-flight counts set after the seal, or null for the problem's.
     * @param tokensOrNull in-flight tokens set after the seal (with {@code inflightOrNull}), or null for the problem's.
     * @return the kernel's filled selection.
     */
    public static Selection selection(
        final ReferenceCase c, final boolean seal, final long[] inflightOrNull, final long[] tokensOrNull)
    {
        final Plans plans = plans(c.decision(), c.eligibility());
        return selection(plans, plans.decision(plans.decisionId(c.decision().name())), c, true, seal, inflightOrNull,
            tokensOrNull);
    }

    /**
     * @param c the problem.
     * @return the kernel's selection on sealed signals as a {@link ReferenceResult}.
     */
    public static ReferenceResult sealedResult(final ReferenceCase c)
    {
        final Plans plans = plans(c.decision(), c.eligibility());
        final DecisionPlan plan = plans.decision(plans.decisionId(c.decision().name()));
        return toResult(plans, plan, selection(plans, plan, c, true, true, null, null), c.reportedFactors());
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
    public static ReferenceResult toResult(
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

    // The problem's observations published; sealed when asked; the in-flight counts and tokens set after that when
    // given; then the kernel, through a request (exclusions, token counts, seed) or through its entry without one.
    private static Selection selection(
        final Plans plans, final DecisionPlan plan, final ReferenceCase c, final boolean throughRequest,
        final boolean seal, final long[] inflightOrNull, final long[] tokensOrNull)
    {
        final ReferenceRequest request = c.request();
        final ReferenceExtensions keys = c.decision().extensions();
        final int n = plan.candidateCount();
        boolean serverSignals = false;
        boolean ejections = false;
        boolean tokenSignals = keys.tokenLoad() || keys.maxInflightTokens() != 0 || tokensOrNull != null;
        for (int i = 0; i < n; i++)
        {
            final ReferenceObservation o = request.observation(plans.modelName(plan.candidateModelId(i)));
            serverSignals |= o.queue() != null || o.kvCache() != null || o.stale();
            tokenSignals |= o.inflightTokens() != 0;
            ejections |= o.ejectedMs() != null;
        }
        final Request engineRequest = new Request().seed(request.seed());
        final CandidateSignals signals = CandidateSignals.standalone(n);
        for (int i = 0; i < n; i++)
        {
            final int modelId = plan.candidateModelId(i);
            final String name = plans.modelName(modelId);
            final ReferenceObservation o = request.observation(name);
            signals.publishLatencyMs(i, orNaN(o.tpotMs()), orNaN(o.ttftMs()));
            signals.inflight(i, o.inflight());
            if (serverSignals)
            {
                signals.publishServerLoad(i, orNaN(o.queue()), orNaN(o.kvCache()), o.stale());
            }
            if (tokenSignals)
            {
                signals.publishInflightTokens(i, o.inflightTokens());
            }
            if (ejections)
            {
                signals.publishEjection(i, orNaN(o.ejectedMs()));
            }
            if (request.excluded().contains(name))
            {
                engineRequest.exclude(modelId);
            }
            if (o.prefix() != null)
            {
                engineRequest.prefixMatch(modelId, o.prefix());
            }
        }
        if (request.promptTokens() != null)
        {
            engineRequest.promptTokens(request.promptTokens());
        }
        if (request.maxOutputTokens() != null)
        {
            engineRequest.maxOutputTokens(request.maxOutputTokens());
        }
        final ReferenceEligibility eligibility = c.eligibility();
        engineRequest.needs(eligibility.needs()).maxTtftMs(eligibility.maxTtftMs()).maxTpotMs(eligibility.maxTpotMs())
            .priority(eligibility.sheddable() ? Priority.SHEDDABLE : Priority.STANDARD);
        if (seal)
        {
            signals.seal(plan);
        }
        if (inflightOrNull != null)
        {
            for (int i = 0; i < n; i++)
            {
                signals.inflight(i, inflightOrNull[i]);
                if (tokensOrNull != null)
                {
                    signals.publishInflightTokens(i, tokensOrNull[i]);
                }
            }
        }
        final Selection selection = new Selection(n);
        ScoringKernel.select(plan, signals, engineRequest.exclusions(), throughRequest ? engineRequest : null, selection);
        return selection;
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
