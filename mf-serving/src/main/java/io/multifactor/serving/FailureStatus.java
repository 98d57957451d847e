package io.multifactor.serving;

import java.lang.reflect.Method;

/**
 * The status a failed call to a model reports when its lease ends ({@link RequestLifecycle#fail}), read from the
 * exception a framework's client threw, for the integrations that call models through a client rather than over their
 * own HTTP exchange (Spring AI, LangChain4j). The exception and its causes are walked, outermost first, for the HTTP
 * status the client kept: a public no-argument {@code statusCode()}, {@code getStatusCode()} or
 * {@code getRawStatusCode()} returning an {@code int}, or an object whose {@code value()} is one (Spring's
 * {@code HttpStatusCode}). That covers the OpenAI Java SDK's {@code OpenAIServiceException}, LangChain4j's
 * {@code HttpException} (the cause of its typed exceptions) and Spring's {@code RestClientResponseException} and
 * {@code WebClientResponseException} without depending on any of them. With no status in the chain the failure is
 * reported with status 0, as a connect failure, reset or timeout is (it counts against the model, DESIGN 4.5).
 * <p>
 * Off the fast path: it runs only for a failed call, and reflects. This class is stateless and threadsafe.
 */
public final class FailureStatus
{
    /** Causes followed at most (a cycle or a very deep chain stops there). */
    public static final int MAX_CAUSES = 16;

    private static final String[] ACCESSORS = {"statusCode", "getStatusCode", "getRawStatusCode"};

    private FailureStatus()
    {
    }

    /**
     * @param failure what a model's client threw.
     * @return the HTTP status found in it or its causes (100..599), or 0 when none is.
     */
    public static int of(final Throwable failure)
    {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < MAX_CAUSES; depth++)
        {
            final int status = statusOf(t);
            if (status != 0)
            {
                return status;
            }
            t = t.getCause() == t ? null : t.getCause();
        }
        return 0;
    }

    private static int statusOf(final Throwable t)
    {
        for (final String name : ACCESSORS)
        {
            final Object value = call(t, name);
            final int status = value instanceof Integer ? (Integer)value : value == null ? 0 : asInt(call(value, "value"));
            if (status >= 100 && status <= 599)
            {
                return status;
            }
        }
        return 0;
    }

    private static int asInt(final Object value)
    {
        return value instanceof Integer ? (Integer)value : 0;
    }

    private static Object call(final Object target, final String name)
    {
        try
        {
            final Method method = target.getClass().getMethod(name);
            return method.getParameterCount() == 0 ? method.invoke(target) : null;
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError ex)
        {
            return null;
        }
    }
}
