package io.multifactor.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mf explain} with a scenario's {@code session:} (section 4.6): each rule as the stated entry makes it, the
 * {@code "session"} member of the JSON and the table's line, {@code null} on a decision without a session block, no
 * member without a session, and the scenario's refusals.
 */
class ExplainSessionTest
{
    @TempDir
    Path dir;

    private static final String CONFIG = """
        models:
          - {name: premium, quality_score: 0.9}
          - {name: standard, quality_score: 0.7}
          - {name: economy, quality_score: 0.3}
        decisions:
          - name: chat
            modelRefs: [{model: premium}, {model: standard}, {model: economy}]
            algorithm:
              type: multi_factor
              multi_factor:
                weights: {quality: 1}
                session: {stay_bias: 0.1, switch_margin: 0.05, min_turns_before_switch: 2, idle_timeout: 60s}
          - name: plain
            modelRefs: [{model: premium}, {model: economy}]
            algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1}}}
        """;

    @Test
    void shouldStayOnAModelWithinTheBiasAndSwitchBeyondIt() throws IOException
    {
        // standard scores 0.6667 against premium's 1.0: within 0.1 + 0.05? No: 1.0 > 0.6667 + 0.15, a switch.
        assertThat(explain("decision: chat\nsession: {model: standard, turns: 2}\n", true).out())
            .contains(" \"selected\": \"premium\",\n")
            .endsWith(",\n \"session\": {\"previous\": \"standard\", \"rule\": \"switch\"}}\n");
        assertThat(explain("decision: chat\nsession: {model: premium, turns: 5, idle_ms: 59999}\n", true).out())
            .endsWith(",\n \"session\": {\"previous\": \"premium\", \"rule\": \"stay\"}}\n");
    }

    @Test
    void shouldKeepThePickForMinTurnsAndHandOffAnExcludedModel() throws IOException
    {
        assertThat(explain("decision: chat\nsession: {model: economy, turns: 1}\n", true).out())
            .contains(" \"selected\": \"economy\",\n")
            .endsWith("\"session\": {\"previous\": \"economy\", \"rule\": \"min_turns\"}}\n");
        assertThat(explain("decision: chat\nexclude: [economy]\nsession: {model: economy, turns: 1}\n", true).out())
            .contains(" \"selected\": \"premium\",\n")
            .endsWith("\"session\": {\"previous\": \"economy\", \"rule\": \"handoff\"}}\n");
    }

    @Test
    void shouldCallAnIdleOrMissingEntryNew() throws IOException
    {
        assertThat(explain("decision: chat\nsession: {model: economy, idle_ms: 60000}\n", true).out())
            .contains(" \"selected\": \"premium\",\n")
            .endsWith("\"session\": {\"previous\": null, \"rule\": \"new\"}}\n");
        assertThat(explain("decision: chat\nsession: {}\n", true).out())
            .endsWith("\"session\": {\"previous\": null, \"rule\": \"new\"}}\n");
        assertThat(explain("decision: chat\nsession: {model: economy}\n", false).out())
            .contains("session   rule min_turns  previous economy\n");
    }

    @Test
    void shouldPrintNullOnADecisionWithoutASessionBlockAndNothingWithoutASession() throws IOException
    {
        assertThat(explain("decision: plain\nsession: {model: economy}\n", true).out())
            .contains(" \"selected\": \"premium\",\n").endsWith(",\n \"session\": null}\n");
        assertThat(explain("decision: chat\n", true).out()).doesNotContain("session").endsWith("]}\n");
    }

    @Test
    void shouldRefuseAnUnknownModelTurnsBelowOneAndNegativeIdleTime() throws IOException
    {
        final CliRun unknown = run("decision: chat\nsession: {model: premum}\n");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("scenario.yaml:2:18: session.model: model \"premum\" is not in the " +
            "configuration");
        final CliRun bad = run("decision: chat\nsession: {turns: 0, idle_ms: -1, modle: premium}\n");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("session.turns: must be in 1..2147483647, got 0")
            .contains("session.idle_ms: must be in 0..").contains("got -1")
            .contains("session.modle: unknown key \"modle\" (did you mean model?)");
        assertThat(bad.out()).isEmpty();
    }

    private CliRun explain(final String scenario, final boolean json) throws IOException
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), CONFIG, StandardCharsets.UTF_8);
        final Path scenarioFile = Files.writeString(dir.resolve("scenario.yaml"), scenario, StandardCharsets.UTF_8);
        final CliRun run = json ?
            CliRun.of("explain", "--config", config.toString(), "--scenario", scenarioFile.toString(), "--json") :
            CliRun.of("explain", "--config", config.toString(), "--scenario", scenarioFile.toString());
        assertThat(run.err()).as("stderr").isEmpty();
        assertThat(run.exit()).isZero();
        return run;
    }

    private CliRun run(final String scenario) throws IOException
    {
        final Path config = Files.writeString(dir.resolve("router.yaml"), CONFIG, StandardCharsets.UTF_8);
        final Path scenarioFile = Files.writeString(dir.resolve("scenario.yaml"), scenario, StandardCharsets.UTF_8);
        return CliRun.of("explain", "--config", config.toString(), "--scenario", scenarioFile.toString(), "--json");
    }
}
