package io.multifactor.serving;

import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;

/**
 * The request headers of eligibility and admission ({@link ServingHeaders#SLO_TTFT_MS},
 * {@link ServingHeaders#SLO_TPOT_MS}, {@link ServingHeaders#PRIORITY}) parsed for {@link RequestFlow}, and the message
 * of a request no candidate can serve, naming what each candidate lacks.
 * <p>
 * This class is stateless and threadsafe.
 */
final class LimitHeaders
{
    /** Error code of a request header with a bad value. */
    static final String INVALID_HEADER = "invalid_header";

    private LimitHeaders()
    {
    }

    /**
     * @param valueOrNull a latency ceiling header's value, or null.
     * @return the ceiling in milliseconds, 0 when absent, -1 when it is not a positive finite number.
     */
    static double sloMs(final String valueOrNull)
    {
        if (valueOrNull == null)
        {
            return 0.0;
        }
        final String text = valueOrNull.trim();
        if (text.isEmpty() || text.length() > 32)
        {
            return -1.0;
        }
        try
        {
            final double ms = Double.parseDouble(text);
            return ms > 0.0 && ms < Double.POSITIVE_INFINITY ? ms : -1.0;
        }
        catch (final NumberFormatException ex)
        {
            return -1.0;
        }
    }

    /**
     * @param valueOrNull the priority header's value, or null.
     * @return its {@link Priority} code, {@link Priority#STANDARD} when absent, -1 when unknown.
     */
    static int priority(final String valueOrNull)
    {
        return valueOrNull == null ? Priority.STANDARD : Priority.parse(valueOrNull.trim());
    }

    static String badSlo(final String header, final String value)
    {
        return "header " + header + " must be a positive number of milliseconds, got \"" + Excerpt.value(value) + '"';
    }

    static String badPriority(final String value)
    {
        return "header " + ServingHeaders.PRIORITY + " must be critical, standard or sheddable, got \"" +
            Excerpt.value(value) + '"';
    }

    /**
     * @param plans the plans the selection ran on.
     * @param selection a selection with outcome {@code ineligible}.
     * @param request the request it ran for.
     * @return a message naming each candidate and what it lacks, such as
     *     {@code no model of decision d can serve this request: small (context=9200>8192), vision (capability=tools)}.
     */
    static String ineligible(final Plans plans, final Selection selection, final Request request)
    {
        final DecisionPlan plan = plans.decision(selection.decisionId());
        final StringBuilder sb = new StringBuilder(128).append("no model of decision ")
            .append(plan == null ? "#" + selection.decisionId() : plan.name()).append(" can serve this request");
        if (plan == null)
        {
            return sb.toString();
        }
        final Explanation explanation = Explanation.of(plans, plan, selection, false, request);
        String separator = ": ";
        for (final Explanation.Candidate candidate : explanation.candidates())
        {
            sb.append(separator).append(candidate.model()).append(" (").append(candidate.dropped()).append(')');
            separator = ", ";
        }
        return sb.toString();
    }
}
