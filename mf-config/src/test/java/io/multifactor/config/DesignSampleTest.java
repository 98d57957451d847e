package io.multifactor.config;

import io.multifactor.api.Factor;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class DesignSampleTest
{
    /** The reference sample of the own format, word for word (vSR's algorithm fragment, plus the models it names). */
    static final String SECTION_3_SAMPLE = """
        models:
          - name: premium-model            # unique, non-empty
            quality_score: 0.9             # optional, finite, >= 0; absent = no quality signal
            pricing:                       # optional
              prompt_per_1m: 10.0          # USD per 1M prompt tokens, finite, >= 0; 0 = free
              completion_per_1m: 30.0      # optional
        decisions:
          - name: quality_policy_decision  # unique
            modelRefs:                     # candidates, in order; non-empty, no duplicates, known models
              - model: premium-model
              - model: economy-model
            algorithm:
              type: multi_factor
              multi_factor:
                weights: {quality: 0.4, latency: 0.2, cost: 0.2, load: 0.2}
                slo:
                  max_tpot_ms: 200         # optional; absent or 0 = no ceiling
                  max_ttft_ms: 800
                  max_cost_per_1m: 5.0
                  max_inflight: 50         # integer
                latency_percentile: 95     # integer 1..100, default 95
                on_no_candidates: cheapest # cheapest (default) | first | fail
        signals:                           # optional, engine-wide; defaults shown are suggestions
          latency_window: 60s              # percentiles cover this rolling time window
          latency_refresh: 1s              # how often published percentiles are recomputed
          inflight_max_age: 10m            # a request never ended is forgotten after this
        """;

    /** The models the sample's decision names; the reference sample lists only the first. */
    static final String ECONOMY_MODEL = """
          - name: economy-model
            quality_score: 0.1
            pricing:
              prompt_per_1m: 1.0
        """;

    @Test
    void shouldLoadTheAlgorithmFragmentOfSection3Unchanged() throws Exception
    {
        final String yaml = SECTION_3_SAMPLE.replace("decisions:\n", ECONOMY_MODEL + "decisions:\n");
        assertThat(yaml).contains(SECTION_3_SAMPLE.substring(SECTION_3_SAMPLE.indexOf("    algorithm:")));

        final LoadedConfig loaded = ConfigLoader.load("sample.yaml", yaml, null);

        assertThat(loaded.warnings()).isEmpty();
        final Plans plans = loaded.plans();
        assertThat(plans.modelCount()).isEqualTo(2);
        final DecisionPlan plan = plans.decision(plans.decisionId("quality_policy_decision"));
        assertThat(plan.candidateCount()).isEqualTo(2);
        assertThat(plans.modelName(plan.candidateModelId(0))).isEqualTo("premium-model");
        assertThat(plans.modelName(plan.candidateModelId(1))).isEqualTo("economy-model");
        assertThat(plan.quality(0)).isEqualTo(0.9);
        assertThat(plan.promptPer1M(0)).isEqualTo(10.0);
        assertThat(plans.modelCompletionPer1M(plan.candidateModelId(0))).isEqualTo(30.0);
        assertThat(plan.weight(Factor.QUALITY)).isCloseTo(0.4, within(1e-12));
        assertThat(plan.weight(Factor.LOAD)).isCloseTo(0.2, within(1e-12));
        assertThat(plan.maxTpotMs()).isEqualTo(200.0);
        assertThat(plan.maxTtftMs()).isEqualTo(800.0);
        assertThat(plan.maxCostPer1M()).isEqualTo(5.0);
        assertThat(plan.maxInflight()).isEqualTo(50L);
        assertThat(plan.percentile()).isEqualTo(95);
        assertThat(plan.policy()).isEqualTo(NoCandidatesPolicy.CHEAPEST);
        assertThat(loaded.config().signals().latencyWindowNs()).isEqualTo(60_000_000_000L);
        assertThat(loaded.config().signals().latencyRefreshNs()).isEqualTo(1_000_000_000L);
        assertThat(loaded.config().signals().inflightMaxAgeNs()).isEqualTo(600_000_000_000L);
    }

    @Test
    void shouldRefuseTheSampleAloneBecauseItNamesAModelItDoesNotDefine()
    {
        final var thrown = org.assertj.core.api.Assertions.catchThrowableOfType(
            io.multifactor.api.InvalidConfigurationException.class,
            () -> ConfigLoader.load("sample.yaml", SECTION_3_SAMPLE, null));

        assertThat(thrown.problems()).hasSize(1);
        assertThat(thrown.problems().get(0).toString()).isEqualTo(
            "sample.yaml:11:16: decisions[0].modelRefs[1].model: unknown model \"economy-model\" (the configuration's models: premium-model)");
    }
}
