package io.multifactor.config.yaml;

/**
 * Renders a node as short YAML flow text ({@code [1, 2]}, {@code {quality: 0.4}}) so a message names the offending value
 * even when it is a list or a mapping; long values are cut with {@code ...}.
 * <p>
 * This class is stateless and threadsafe.
 */
final class FlowText
{
    /** Longest rendering before it is cut. */
    static final int MAX_CHARS = 60;

    private FlowText()
    {
    }

    /**
     * @param node a node.
     * @return its flow text, at most {@link #MAX_CHARS} characters plus {@code ...}.
     */
    static String of(final YamlNode node)
    {
        final StringBuilder sb = new StringBuilder();
        append(sb, node);
        return sb.length() > MAX_CHARS ? sb.substring(0, MAX_CHARS) + "..." : sb.toString();
    }

    private static void append(final StringBuilder sb, final YamlNode node)
    {
        if (sb.length() > MAX_CHARS)
        {
            return;
        }
        if (node instanceof YamlSequence)
        {
            sb.append('[');
            final YamlSequence sequence = (YamlSequence)node;
            for (int i = 0; i < sequence.items().size(); i++)
            {
                sb.append(i == 0 ? "" : ", ");
                append(sb, sequence.items().get(i));
            }
            sb.append(']');
        }
        else if (node instanceof YamlMapping)
        {
            sb.append('{');
            final YamlMapping mapping = (YamlMapping)node;
            for (int i = 0; i < mapping.entries().size(); i++)
            {
                final YamlEntry entry = mapping.entries().get(i);
                sb.append(i == 0 ? "" : ", ").append(entry.key()).append(": ");
                append(sb, entry.value());
            }
            sb.append('}');
        }
        else
        {
            final YamlScalar scalar = (YamlScalar)node;
            switch (scalar.kind())
            {
                case STRING:
                    sb.append('"').append(scalar.text()).append('"');
                    break;
                case NULL:
                    sb.append("null");
                    break;
                default:
                    sb.append(scalar.text());
            }
        }
    }
}
