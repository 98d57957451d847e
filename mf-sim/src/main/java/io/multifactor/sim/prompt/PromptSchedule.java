package io.multifactor.sim.prompt;

import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * The requests of a {@link PromptWorkload} in the order they are sent: sessions start as a Poisson process at
 * {@code arrivalsPerS / turns} until {@code durationS}; each session's system prompt is drawn at its start, and its
 * turns are due at start + (k - 1) x think time; a turn due at or after {@code durationS} is not sent. The same seed
 * gives the same requests.
 * <p>
 * This class is not threadsafe: one thread draws from it.
 */
public final class PromptSchedule
{
    private static final long NS_PER_S = 1_000_000_000L;
    private static final long SYSTEM_ID_BASE = 0x5E5_0000_0000L;

    private final PromptWorkload workload;
    private final double sessionsPerS;
    private final long endNs;
    private final long seedMix;
    private final SplittableRandom random;
    private final PriorityQueue<PromptTurn> due = new PriorityQueue<>((a, b) -> a.timeNs() != b.timeNs() ?
        Long.compare(a.timeNs(), b.timeNs()) : a.sessionId() != b.sessionId() ?
        Long.compare(a.sessionId(), b.sessionId()) : Integer.compare(a.turn(), b.turn()));
    private long nextStartNs;
    private long sessions;

    /**
     * @param workload the prompts.
     * @param arrivalsPerS mean requests per second, > 0.
     * @param durationS seconds of arrivals, > 0.
     * @param seed seed of the session starts and system prompt draws.
     */
    public PromptSchedule(final PromptWorkload workload, final double arrivalsPerS, final double durationS,
        final long seed)
    {
        this.workload = workload;
        this.sessionsPerS = arrivalsPerS / workload.turns();
        this.endNs = Math.round(durationS * NS_PER_S);
        this.seedMix = PromptTurn.mix(seed);
        this.random = new SplittableRandom(seed);
        this.nextStartNs = gapNs();
    }

    /** @return when the next request is due, nanoseconds from the start, or {@link Long#MAX_VALUE} when none is. */
    public long nextTimeNs()
    {
        startDueSessions();
        return due.isEmpty() ? Long.MAX_VALUE : due.peek().timeNs();
    }

    /** @return the next request in time order, or null when the run has no more. */
    public PromptTurn next()
    {
        startDueSessions();
        return due.poll();
    }

    private void startDueSessions()
    {
        while (nextStartNs < endNs && (due.isEmpty() || nextStartNs <= due.peek().timeNs()))
        {
            start(nextStartNs);
            nextStartNs += gapNs();
        }
    }

    private long gapNs()
    {
        return Math.max(1L, Math.round(-Math.log(1.0 - random.nextDouble()) / sessionsPerS * NS_PER_S));
    }

    private void start(final long startNs)
    {
        final long session = ++sessions;
        final int prompts = workload.systemPrompts();
        final double u = random.nextDouble();
        final int system = prompts == 0 ? -1 : u < workload.hotShare() ? 0 :
            (int)Math.min(prompts - 1, Math.floor((u - workload.hotShare()) / (1.0 - workload.hotShare()) * prompts));
        final long sessionKey = PromptTurn.mix(seedMix ^ session) | 1L;
        for (int turn = 1; turn <= workload.turns(); turn++)
        {
            final long timeNs = startNs + Math.round((turn - 1) * workload.thinkTimeS() * NS_PER_S);
            if (timeNs >= endNs)
            {
                break;
            }
            final int count = (system < 0 ? 0 : 1) + 2 * (turn - 1) + 1;
            final long[] ids = new long[count];
            final int[] tokens = new int[count];
            final int[] roles = new int[count];
            int i = 0;
            if (system >= 0)
            {
                ids[i] = PromptTurn.mix(SYSTEM_ID_BASE + system);
                tokens[i] = workload.systemTokens();
                roles[i++] = PromptTurn.SYSTEM;
            }
            for (int k = 1; k <= turn; k++)
            {
                ids[i] = PromptTurn.mix(sessionKey + 2L * k);
                tokens[i] = workload.messageTokens();
                roles[i++] = PromptTurn.USER;
                if (k < turn)
                {
                    ids[i] = PromptTurn.mix(sessionKey + 2L * k + 1L);
                    tokens[i] = workload.answerTokens();
                    roles[i++] = PromptTurn.ASSISTANT;
                }
            }
            due.add(new PromptTurn(timeNs, sessionKey, turn, ids, tokens, roles));
        }
    }
}
