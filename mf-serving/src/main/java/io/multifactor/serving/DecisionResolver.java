package io.multifactor.serving;

import io.multifactor.api.Handles;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;

/**
 * Names the decision of a request: the {@code x-mf-decision} header when present, else the body's {@code model} when
 * it names a decision. Anything else is refused with a message that lists the decisions.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class DecisionResolver
{
    private DecisionResolver()
    {
    }

    /**
     * @param plans the current plans.
     * @param headerOrNull the {@link ServingHeaders#DECISION} header's value, or {@code null}.
     * @param bodyModelOrNull the body's {@code model}, or {@code null}.
     * @return the decision's handle, or {@link Handles#NONE} (then {@link #problem} says why).
     */
    public static int resolve(final Plans plans, final String headerOrNull, final String bodyModelOrNull)
    {
        if (headerOrNull != null)
        {
            return plans.decisionId(headerOrNull);
        }
        return bodyModelOrNull == null ? Handles.NONE : plans.decisionId(bodyModelOrNull);
    }

    /**
     * The message for a request {@link #resolve} found no decision for. Off the request's fast path: allocates.
     *
     * @param plans the current plans.
     * @param headerOrNull the header's value, or {@code null}.
     * @param bodyModelOrNull the body's {@code model}, or {@code null}.
     * @return a sentence naming what was asked and listing the decisions.
     */
    public static String problem(final Plans plans, final String headerOrNull, final String bodyModelOrNull)
    {
        final String asked;
        if (headerOrNull != null)
        {
            asked = "unknown decision \"" + shorten(headerOrNull) + "\" in header " + ServingHeaders.DECISION;
        }
        else if (bodyModelOrNull != null)
        {
            asked = "\"model\": \"" + shorten(bodyModelOrNull) + "\" names neither a decision nor a model (header " +
                ServingHeaders.DECISION + " is absent)";
        }
        else
        {
            asked = "no decision: set header " + ServingHeaders.DECISION + " or the body's \"model\" to a decision";
        }
        return asked + "; decisions: " + decisions(plans);
    }

    /**
     * @param plans the plans.
     * @return the decision names, comma-separated, in handle order.
     */
    public static String decisions(final Plans plans)
    {
        final StringBuilder sb = new StringBuilder();
        for (int id = 0; id < plans.decisionCapacity(); id++)
        {
            final DecisionPlan plan = plans.decision(id);
            if (plan != null)
            {
                sb.append(sb.length() == 0 ? "" : ", ").append(plan.name());
            }
        }
        return sb.toString();
    }

    /**
     * The answer to {@code GET /v1/models}: the decisions, in handle order, in OpenAI's list format, so that SDKs and
     * UIs that list models work. Off the request's fast path: allocates.
     *
     * @param plans the current plans.
     * @return {@code {"object":"list","data":[{"id":DECISION,"object":"model","created":0,"owned_by":"multi-factor"}]}}.
     */
    public static String modelsList(final Plans plans)
    {
        return modelsList(plans, null);
    }

    /**
     * Off the request path: allocates.
     *
     * @param plans the running plans.
     * @param allowedOrNull the decisions to list (a client key's), or {@code null} for all.
     * @return the body of {@code GET /v1/models} listing only the decisions {@code allowedOrNull} accepts.
     */
    public static String modelsList(final Plans plans, final java.util.function.Predicate<String> allowedOrNull)
    {
        final StringBuilder sb = new StringBuilder(64 + 96 * plans.decisionCount()).append("{\"object\":\"list\",\"data\":[");
        boolean first = true;
        for (int id = 0; id < plans.decisionCapacity(); id++)
        {
            final DecisionPlan plan = plans.decision(id);
            if (plan != null && (allowedOrNull == null || allowedOrNull.test(plan.name())))
            {
                sb.append(first ? "" : ",").append("{\"id\":").append(JsonText.string(plan.name()))
                    .append(",\"object\":\"model\",\"created\":0,\"owned_by\":\"multi-factor\"}");
                first = false;
            }
        }
        return sb.append("]}").toString();
    }

    private static String shorten(final String text)
    {
        return text.length() <= 80 ? text : text.substring(0, 77) + "...";
    }
}
