package io.multifactor.kernel.plan;

import io.multifactor.api.Factor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WeightsTest
{
    @Test
    void shouldNormalizeFourTwoTwoTwoToPointFourAndPointTwos()
    {
        assertThat(Weights.normalize(4, 2, 2, 2)).containsExactly(0.4, 0.2, 0.2, 0.2, 0.0, 0.0, 0.0);
    }

    @Test
    void shouldUseEqualWeightsWhenAllAreZero()
    {
        assertThat(Weights.normalize(0, 0, 0, 0)).containsExactly(0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 0.0);
    }

    @Test
    void shouldUseEqualWeightsWhenAllAreNegative()
    {
        assertThat(Weights.normalize(-1, -2, 0, -0.5)).containsExactly(0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 0.0);
    }

    @Test
    void shouldClampNegativeWeightToZero()
    {
        assertThat(Weights.normalize(-3, 1, 0, 1)).containsExactly(0.0, 0.5, 0.0, 0.5, 0.0, 0.0, 0.0);
    }

    @Test
    void shouldRefuseNaNAndInfiniteWeights()
    {
        assertThatThrownBy(() -> Weights.normalize(Double.NaN, 1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Weights.normalize(1, Double.POSITIVE_INFINITY, 1, 1))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Weights.normalize(Double.MAX_VALUE, Double.MAX_VALUE, 0, 0))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldCarryNormalizedWeightsIntoThePlan()
    {
        final Plans plans = new PlansBuilder().model("m", 0.5, 1.0)
            .decision("d").candidates("m").weights(0, 3, 1, 0).add().build();
        final DecisionPlan plan = plans.decision(plans.decisionId("d"));
        assertThat(plan.weight(Factor.LATENCY)).isEqualTo(0.75);
        assertThat(plan.weight(Factor.COST)).isEqualTo(0.25);
        assertThat(plan.weight(Factor.QUALITY)).isZero();
    }

    @Test
    void shouldDefaultToEqualWeights()
    {
        final Plans plans = new PlansBuilder().model("m", 0.5, 1.0).decision("d").candidates("m").add().build();
        final DecisionPlan plan = plans.decision(plans.decisionId("d"));
        for (int f = 0; f < Factor.SEED_COUNT; f++)
        {
            assertThat(plan.weight(f)).isEqualTo(0.25);
        }
        assertThat(plan.weight(Factor.QUEUE)).isZero();
        assertThat(plan.weight(Factor.KV_CACHE)).isZero();
    }

    @Test
    void shouldNormalizeSixWeightsAndGiveTheSeedFactorsEqualSharesWhenAllAreZero()
    {
        assertThat(Weights.normalize(new double[] { 1, 0, 0, 1, 1, 1 })).containsExactly(0.25, 0.0, 0.0, 0.25, 0.25, 0.25, 0.0);
        assertThat(Weights.normalize(new double[] { 0, 0, 0, 0, 0, -1 }))
            .containsExactly(0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 0.0);
        // An array shorter than the table leaves the factors beyond it at 0 (an absent key); a longer one is refused.
        assertThat(Weights.normalize(new double[] { 1, 1, 1, 1 })).containsExactly(0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 0.0);
        assertThatThrownBy(() -> Weights.normalize(new double[Factor.COUNT + 1]))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldNormalizeThePrefixWeightWithTheOtherSix()
    {
        final double[] configured = new double[Factor.COUNT];
        configured[Factor.QUALITY] = 1;
        configured[Factor.PREFIX] = 3;
        assertThat(Weights.normalize(configured)).containsExactly(0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.75);
    }
}
