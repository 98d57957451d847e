package io.multifactor.config.yaml;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** A YAML syntax error is a readable sentence located where the mistake is, not where the parser noticed it. */
class SyntaxMessageTest
{
    @Test
    void shouldReportAnUnclosedListWhereItOpens()
    {
        assertThat(problem("models:\n  - name: a\n    pricing: [1, 2\n  - name: b\n")).isEqualTo(
            "r.yaml:3:14: models[0].pricing[1]: malformed YAML: the list opened with '[' here is not closed with ']' " +
            "(noticed at line 4, column 9: expected ',' or ']', but got :)");
    }

    @Test
    void shouldReportAnUnclosedMappingAndQuoteWhereTheyOpen()
    {
        assertThat(problem("models:\n  - {name: a\n  - name: b\n")).startsWith(
            "r.yaml:2:5: models[0].name: malformed YAML: the mapping opened with '{' here is not closed with '}'");
        assertThat(problem("models:\n  - name: \"a\n  - name: b\n")).startsWith(
            "r.yaml:2:11: models[0].name: malformed YAML: the quoted value opened here is not closed");
    }

    @Test
    void shouldReportAKeyWithoutItsColonOnTheKeysLine()
    {
        assertThat(problem("models:\n  - name: a\n    quality_score\ndecisions: []\n")).isEqualTo(
            "r.yaml:3:5: models[0].name: malformed YAML: this line is neither 'key: value' nor '- item': a ':' is " +
            "missing after a key, or the line belongs to the value above and is indented wrongly");
    }

    @Test
    void shouldReportBadIndentationOnTheLineOutOfLine()
    {
        assertThat(problem("models:\n  - name: a\n   quality_score: 1\n")).isEqualTo(
            "r.yaml:3:4: models[0].name: malformed YAML: bad indentation: this line does not line up with the keys or " +
            "list items above it (their block starts at line 2, column 3)");
        assertThat(problem("models:\n  - name: a: b\n")).isEqualTo(
            "r.yaml:2:12: models[0].name: malformed YAML: unexpected ':' here: quote a value that contains ': ', or " +
            "fix this line's indentation");
    }

    @Test
    void shouldReportATabPlainly()
    {
        assertThat(problem("models:\n\t- name: a\n")).isEqualTo(
            "r.yaml:2:1: models: malformed YAML: a tab character cannot indent YAML; indent with spaces");
    }

    private static String problem(final String yaml)
    {
        final InvalidConfigurationException thrown =
            catchThrowableOfType(InvalidConfigurationException.class, () -> YamlTreeReader.read("r.yaml", yaml));
        assertThat(thrown).isNotNull();
        assertThat(thrown.problems()).hasSize(1);
        final ConfigProblem problem = thrown.problems().get(0);
        return problem.toString();
    }
}
