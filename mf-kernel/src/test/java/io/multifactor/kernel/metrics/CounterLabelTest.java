package io.multifactor.kernel.metrics;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.strings;

class CounterLabelTest
{
    @Test
    void shouldFormatTagsInPrometheusStyle()
    {
        assertThat(CounterLabel.format("mf.drops", "model", "premium-model", "reason", "tpot"))
            .isEqualTo("mf.drops{model=\"premium-model\",reason=\"tpot\"}");
        assertThat(CounterLabel.format("mf.fleet.replicas")).isEqualTo("mf.fleet.replicas");
        assertThat(CounterLabel.format("mf.inflight", "model", "a\"b\\c\nd")).isEqualTo("mf.inflight{model=\"a\\\"b\\\\c\\nd\"}");
    }

    @Test
    void shouldParseWhatItFormatsWhateverTheNames()
    {
        qt().forAll(strings().allPossible().ofLengthBetween(0, 40), strings().basicMultilingualPlaneAlphabet()
            .ofLengthBetween(0, 40)).checkAssert((model, decision) ->
        {
            final CounterLabel parsed = CounterLabel.parse(
                CounterLabel.format("mf.selected", "decision", decision, "model", model, "outcome", "scored"));
            assertThat(parsed).isNotNull();
            assertThat(parsed.name()).isEqualTo("mf.selected");
            assertThat(parsed.tagCount()).isEqualTo(3);
            assertThat(parsed.tag("decision")).isEqualTo(decision);
            assertThat(parsed.tag("model")).isEqualTo(model);
            assertThat(parsed.tag("outcome")).isEqualTo("scored");
            assertThat(parsed.tag("reason")).isNull();
        });
    }

    @Test
    void shouldNotParseForeignOrTruncatedLabels()
    {
        assertThat(CounterLabel.parse("inflight alpha")).isNull();
        assertThat(CounterLabel.parse("")).isNull();
        assertThat(CounterLabel.parse("mf.drops{model=\"a\",reason=\"tp")).isNull();
        assertThat(CounterLabel.parse("mf.drops{model=\"a\"")).isNull();
        assertThat(CounterLabel.parse("mf.drops{model=a}")).isNull();
        assertThat(CounterLabel.parse("mf.drops{model=\"a\"}x")).isNull();
        assertThat(CounterLabel.parse("mf.engine.samples_refused").name()).isEqualTo("mf.engine.samples_refused");
    }

    @Test
    void shouldRefuseNamesOutsideTheGrammar()
    {
        assertThatIllegalArgumentException().isThrownBy(() -> CounterLabel.format("mf drops"));
        assertThatIllegalArgumentException().isThrownBy(() -> CounterLabel.format("mf.drops", "model"));
        assertThatIllegalArgumentException().isThrownBy(() -> CounterLabel.format("mf.drops", "mo del", "x"));
    }
}
