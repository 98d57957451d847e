package io.multifactor.config.yaml;

import io.multifactor.api.InvalidConfigurationException;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Turns the YAML parser's account of a syntax error into a sentence a newcomer can act on, located where the mistake
 * is rather than where the parser noticed it: an unclosed {@code [}, <code>{</code> or quote is reported where it was
 * opened, a key without its {@code :} on the key's own line (the parser notices both on a later line), bad indentation
 * on the line that is out of line. Anything else keeps the parser's words, cleaned of its own location lines.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param line 1-based line of the mistake.
 * @param column 1-based column of the mistake.
 * @param message the sentence, starting with {@code malformed YAML: }.
 */
record SyntaxMessage(int line, int column, String message)
{
    /**
     * @param ex the parser's exception, with its problem mark.
     * @return the located sentence.
     */
    static SyntaxMessage of(final MarkedYAMLException ex)
    {
        final Mark problemMark = ex.getProblemMark();
        final Mark contextMark = ex.getContextMark();
        final String context = ex.getContext() == null ? "" : ex.getContext();
        final String problem = YamlTreeReader.clean(ex.getProblem());
        final String noticed = " (noticed at line " + (problemMark.getLine() + 1) + ", column " +
            (problemMark.getColumn() + 1) + ": " + problem + ')';
        if (contextMark != null)
        {
            if (context.startsWith("while parsing a flow sequence"))
            {
                return at(contextMark, "the list opened with '[' here is not closed with ']'" + noticed);
            }
            if (context.startsWith("while parsing a flow mapping"))
            {
                return at(contextMark, "the mapping opened with '{' here is not closed with '}'" + noticed);
            }
            if (context.startsWith("while scanning a quoted scalar"))
            {
                return at(contextMark, "the quoted value opened here is not closed" + noticed);
            }
            if (context.startsWith("while scanning a simple key"))
            {
                return at(contextMark, "this line is neither 'key: value' nor '- item': a ':' is missing after a key," +
                    " or the line belongs to the value above and is indented wrongly");
            }
            if (context.startsWith("while parsing a block") && problem.startsWith("expected <block end>"))
            {
                return at(problemMark, "bad indentation: this line does not line up with the keys or list items " +
                    "above it (their block starts at line " + (contextMark.getLine() + 1) + ", column " +
                    (contextMark.getColumn() + 1) + ')');
            }
        }
        if (problem.startsWith("mapping values are not allowed here"))
        {
            return at(problemMark, "unexpected ':' here: quote a value that contains ': ', or fix this line's " +
                "indentation");
        }
        if (problem.contains("\\t(TAB)") || problem.contains("\t"))
        {
            return at(problemMark, "a tab character cannot indent YAML; indent with spaces");
        }
        return at(problemMark, (context.isEmpty() ? "" : context + ": ") + problem);
    }

    /**
     * @param file name of the file.
     * @param path path of the node being read when the parser failed.
     * @return the exception to throw.
     */
    InvalidConfigurationException problem(final String file, final String path)
    {
        return YamlTreeReader.single(file, line, column, path, message);
    }

    private static SyntaxMessage at(final Mark mark, final String sentence)
    {
        return new SyntaxMessage(mark.getLine() + 1, mark.getColumn() + 1, "malformed YAML: " + sentence);
    }
}
