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
        // LiteLLM tests/local_testing/test_least_busy_routing.py, test_router_get_available_deployments: request
        // counts {1: 10, 2: 54, 3: 100} pick deployment 1.
        final Run run = new Run(AlgorithmType.LITELLM_LEAST_BUSY).inflight(10, 54, 100);
        assertThat(run.select(null, null)).isZero();
        // Same file, test_router_completion_streaming: three calls started one after another, each still in flight,
        // end with one call on every deployment (an unused deployment counts 0; the first of equal counts wins, as
        // _get_available_deployments keeps the first strict minimum).
        run.inflight(0, 0, 0);
        final int[] counts = new int[3];
        for (int call = 0; call < 3; call++)
        {
            final int chosen = run.select(null, new Request().seed(call));
            assertThat(chosen).isEqualTo(call);
            counts[chosen]++;
            run.inflight(counts[0], counts[1], counts[2]);
        }
        assertThat(counts).containsExactly(1, 1, 1);
        // Above its ceiling (max_inflight 1) a candidate stays in: a peer's policy reads no ceiling.
        run.inflight(3, 5, 3);
        assertThat(run.select(null, null)).isZero();
        assertThat(run.out.score(0)).isEqualTo(1.0);
    }

    @Test
    void leastRequestShouldDrawAmongTheTiedAtRandom()
    {
        // AIBrix pkg/plugins/gateway/algorithms/least_request_test.go, TestLeastRequest: "successful routing with
        // least request", running {p1: 1, p2: 2, p3: 3, p4: 9} routes to p1 (here over three: {1, 2, 3}).
        final Run run = new Run(AlgorithmType.AIBRIX_LEAST_REQUEST).inflight(1, 2, 3);
        assertThat(run.select(null, new Request().seed(7))).isZero();
        // Same test, "multiple pods with same least requests": {p1: 1, p2: 5, p3: 1} routes to p1 or p3; the source
        // draws targetPods[rand.Intn(len(targetPods))], so both come up.
        run.inflight(1, 5, 1);
        final int[] chosen = new int[3];
        for (int i = 0; i < 400; i++)
        {
            chosen[run.select(null, new Request().seed(i))]++;
        }
        assertThat(chosen[1]).isZero();
        assertThat(chosen[0]).isBetween(140, 260);
        assertThat(chosen[2]).isBetween(140, 260);
        // An excluded candidate never comes up, and the same request seed draws the same among a tie.
        assertThat(run.select(new Exclusions().add(run.plan.candidateModelId(0)), new Request().seed(7))).isEqualTo(2);
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
