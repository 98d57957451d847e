package io.multifactor.kernel.scoring;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The peers' model-level policies, each pinned on a small hand case taken from its source's own tests or docs (named
 * in each test), over three candidates a, b, c in {@code modelRefs} order.
 */
class PeerPoliciesTest
{
    private static final class Run
    {
        final DecisionPlan plan;
        final CandidateSignals signals;
        final Selection out = new Selection();

        Run(final int type)
        {
            final Plans plans = new PlansBuilder()
                .model("a", 0.9, 10.0)
                .model("b", 0.5, 1.0)
                .model("c", 0.1, 0.1)
                .decision("d").candidates("a", "b", "c").algorithmType(type).slo(100.0, 100.0, 0.5, 1).add()
                .build();
            plan = plans.decision(plans.decisionId("d"));
            signals = CandidateSignals.standalone(plan.candidateCount());
        }

        Run inflight(final long a, final long b, final long c)
        {
            signals.inflight(0, a);
            signals.inflight(1, b);
            signals.inflight(2, c);
            return this;
        }

        int select(final Exclusions exclusions, final Request request)
        {
            BaselineKernel.select(plan, signals, exclusions, request, out);
            assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
            return out.selectedIndex();
        }
    }

    @Test
    void leastBusyShouldPickTheFewestInFlightAndTheFirstOfATie()
    {
        // LiteLLM tests/local_testing/test_least_busy_routing.py, test_get_available_deployments: request counts
        // {"1234": 10, "5678": 5} pick "5678"; an unused deployment counts 0 and the first of equal counts wins
        // (its _get_available_deployments keeps the first strict minimum).
        final Run run = new Run(AlgorithmType.LITELLM_LEAST_BUSY).inflight(10, 5, 7);
        assertThat(run.select(null, null)).isEqualTo(1);
        run.inflight(10, 5, 0);
        assertThat(run.select(null, null)).isEqualTo(2);
        run.inflight(3, 5, 3);
        for (int i = 0; i < 50; i++)
        {
            assertThat(run.select(null, new Request().seed(i))).isZero();
        }
        // Above its ceiling (max_inflight 1) a candidate stays in: a peer's policy reads no ceiling.
        assertThat(run.out.score(0)).isEqualTo(1.0);
    }

    @Test
    void leastRequestShouldDrawAmongTheTiedAtRandom()
    {
        // AIBrix pkg/plugins/gateway/algorithms/least_request.go, selectTargetPodWithLeastRequestCountFromCounts:
        // counts {p1: 3, p2: 1, p3: 1} keep [p2, p3] and return targetPods[rand.Intn(2)].
        final Run run = new Run(AlgorithmType.AIBRIX_LEAST_REQUEST).inflight(3, 1, 1);
        final int[] chosen = new int[3];
        for (int i = 0; i < 400; i++)
        {
            chosen[run.select(null, new Request().seed(i))]++;
        }
        assertThat(chosen[0]).isZero();
        assertThat(chosen[1]).isBetween(140, 260);
        assertThat(chosen[2]).isBetween(140, 260);
        // A single minimum is taken every time, and an excluded one never.
        run.inflight(4, 2, 9);
        assertThat(run.select(null, new Request().seed(7))).isEqualTo(1);
        assertThat(run.select(new Exclusions().add(run.plan.candidateModelId(1)), new Request().seed(7))).isZero();
        // The same request seed draws the same among a tie.
        run.inflight(0, 0, 0);
        assertThat(run.select(null, new Request().seed(5))).isEqualTo(run.select(null, new Request().seed(5)));
    }

    @Test
    void simpleShuffleShouldDrawUniformlyOverTheModels()
    {
        // LiteLLM litellm/router_strategy/simple_shuffle.py: with no weight, rpm or tpm on the deployments it returns
        // random.choice(healthy_deployments); its docs (routing.md, "Simple Shuffle") call it the default strategy.
        final Run run = new Run(AlgorithmType.LITELLM_SIMPLE_SHUFFLE).inflight(50, 0, 0);
        final int[] chosen = new int[3];
        for (int i = 0; i < 600; i++)
        {
            chosen[run.select(null, new Request().seed(i))]++;
        }
        for (final int count : chosen)
        {
            assertThat(count).isBetween(140, 260);
        }
        assertThat(run.select(new Exclusions().add(run.plan.candidateModelId(0)).add(run.plan.candidateModelId(2)), null))
            .isEqualTo(1);
    }
}
