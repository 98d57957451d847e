package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/mf explain} on the prefix example (examples/prefix-price.yaml, examples/prefix-request.yaml): each candidate's
 * {@code prefix} and cache-aware {@code cost_per_1m}, {@code prefix} in {@code normalized} and {@code weights}, the
 * outcomes docs/semantics.md's worked example states, and a scenario's bad {@code prefix} refused with its location.
 */
class PrefixExplainTest
{
    private static final Path CONFIG = Path.of("..", "examples", "prefix-price.yaml");
    private static final Path REQUEST = Path.of("..", "examples", "prefix-request.yaml");

    @TempDir
    Path dir;

    private CliRun explain(final Path scenario)
    {
        return CliRun.of("explain", "--config", CONFIG.toString(), "--scenario", scenario.toString(), "--json");
    }

    private Path scenario(final String yaml) throws IOException
    {
        return Files.writeString(dir.resolve("request.yaml"), yaml);
    }

    @Test
    void shouldShowTheCachedSharesAndTheCacheAwarePriceOfTheExample()
    {
        final CliRun run = explain(REQUEST);
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out())
            .contains("\"selected\": \"open-70b\"")
            .contains("\"weights\": {\"quality\": 0.4, \"latency\": 0.0, \"cost\": 0.3, \"load\": 0.0, \"queue\": 0.0, " +
                "\"kv_cache\": 0.0, \"prefix\": 0.3}")
            // frontier: 0.4 x 3.00 + 0.6 x 0.30; open-70b has no cached price.
            .containsPattern("\"model\": \"frontier\", \"dropped\": null, \"score\": 0\\.4[0-9]*,")
            .containsPattern("\"cost_per_1m\": 1\\.38[0-9]*,")
            .contains("\"cost_per_1m\": 0.9,")
            .contains("\"prefix\": 0.6,")
            .contains("\"prefix\": 0.95,")
            .contains("\"normalized\": {\"quality\": 1.0, \"latency\": 0.0, \"cost\": 0.0, \"load\": 0.5, " +
                "\"queue\": 0.0, \"kv_cache\": 0.0, \"prefix\": 0.0}")
            .contains("\"normalized\": {\"quality\": 0.0, \"latency\": 0.0, \"cost\": 1.0, \"load\": 0.5, " +
                "\"queue\": 0.0, \"kv_cache\": 0.0, \"prefix\": 1.0}");
    }

    @Test
    void shouldFollowTheVariantsOfTheWorkedExample() throws IOException
    {
        final CliRun cached = explain(scenario("decision: agent_turns\nmodels:\n  frontier: {prefix: 0.95}\n" +
            "  open-70b: {prefix: 0.1}\n"));
        assertThat(cached.exit()).as(cached.err()).isZero();
        assertThat(cached.out()).contains("\"selected\": \"frontier\"")
            .containsPattern("\"model\": \"frontier\", \"dropped\": null, \"score\": 1\\.0,")
            .containsPattern("\"cost_per_1m\": 0\\.435[0-9]*,");

        // A first turn: no share, frontier at its plain prompt price breaks the ceiling; prefix is null.
        final CliRun first = explain(scenario("decision: agent_turns\n"));
        assertThat(first.exit()).as(first.err()).isZero();
        assertThat(first.out()).contains("\"selected\": \"open-70b\"")
            .contains("\"dropped\": \"cost_per_1m=3.0>2.0\"");
        final String page = Files.readString(Path.of("..", "docs", "semantics.md"));
        assertThat(page).contains("`cost_per_1m=3.0>2.0`").contains("0.05 x 3.00 + 0.95 x 0.30 = 0.435")
            .contains("`0.4 x 3.00 + 0.6 x 0.30 = 1.38`");
    }

    @Test
    void shouldListTheCachedPromptPriceInValidate()
    {
        final CliRun run = CliRun.of("validate", CONFIG.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out())
            .contains("  frontier  quality 0.9  prompt_per_1m 3.0  completion_per_1m 15.0  cached_prompt_per_1m 0.3\n")
            .contains("  open-70b  quality 0.8  prompt_per_1m 0.9  completion_per_1m 0.9\n");
    }

    @Test
    void shouldRefuseAPrefixOutsideTheUnitIntervalWithItsLocation() throws IOException
    {
        final CliRun run = CliRun.of("explain", "--config", CONFIG.toString(), "--scenario",
            scenario("decision: agent_turns\nmodels:\n  frontier:\n    prefix: 1.5\n").toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("request.yaml:4:13: models.frontier.prefix: prefix is the share of the request's " +
            "prompt cached for the model, 0..1, got 1.5");
    }
}
