package io.multifactor.config.read;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NameHintTest
{
    @Test
    void shouldSuggestThePlausibleTypoOnly()
    {
        assertThat(NameHint.of("economy-modle", List.of("premium-model", "economy-model"), "models"))
            .isEqualTo(" (did you mean economy-model?)");
    }

    @Test
    void shouldListTheDefinedNamesInOrderWhenNothingResemblesTheName()
    {
        assertThat(NameHint.of("gpt-4o", List.of("premium-model", "economy-model"), "models"))
            .isEqualTo(" (the configuration's models: premium-model, economy-model)");
    }

    @Test
    void shouldBoundTheListAndSayHowManyMoreThereAre()
    {
        final List<String> many = new ArrayList<>();
        for (int i = 0; i < 5_000; i++)
        {
            many.add("model-" + i);
        }
        final String hint = NameHint.of("zzz", many, "models");
        assertThat(hint).isEqualTo(" (the configuration's 5000 models: model-0, model-1, model-2, model-3, model-4, " +
            "model-5, model-6, model-7, model-8, model-9, ... and 4990 more)");
    }

    @Test
    void shouldStopListingLongNamesByLengthNotOnlyByCount()
    {
        final String x = "x".repeat(70);
        final String y = "y".repeat(70);
        final String z = "z".repeat(70);
        final String hint = NameHint.of("q", List.of(x, y, z), "decisions");
        assertThat(hint).isEqualTo(" (the configuration's 3 decisions: " + x + ", " + y + ", ... and 1 more)");
        assertThat(hint.length()).isLessThan(NameHint.MAX_LIST_CHARS + 80);
    }

    @Test
    void shouldSayWhenNothingIsDefined()
    {
        assertThat(NameHint.of("a", List.of(), "decisions")).isEqualTo(" (the configuration has no decisions)");
    }
}
