package io.multifactor.tools;

/**
 * Exit codes of {@code bin/mf}, a contract (docs/cli.md, "Exit codes"): other programs branch on them.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ExitCodes
{
    /** Success. */
    public static final int OK = 0;

    /** An unexpected internal error (a bug, not a user mistake); a stack trace is printed. */
    public static final int INTERNAL_ERROR = 1;

    /** Invalid input: a configuration, a scenario or the command line; the message is on stderr, nothing on stdout. */
    public static final int INVALID_INPUT = 2;

    /** The decision failed (outcome {@code failed}, such as by its {@code on_no_candidates: fail} policy). */
    public static final int FAILED_OUTCOME = 3;

    /**
     * {@code stat}: the counters file is whole but its engine is not alive (closed, or its heartbeat is older than
     * 3 s: it died, hangs, or runs no refresh agent); the table of its last counts is printed.
     */
    public static final int NOT_ALIVE = 4;

    private ExitCodes()
    {
    }
}
