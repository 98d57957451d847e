package io.multifactor.sim.prompt;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The requests of the prompt workloads: sessions that resend their history, shared system prompts, a hot one. */
class PromptScheduleTest
{
    private static List<PromptTurn> all(final PromptWorkload workload, final double rate, final double seconds,
        final long seed)
    {
        final PromptSchedule schedule = new PromptSchedule(workload, rate, seconds, seed);
        final List<PromptTurn> turns = new ArrayList<>();
        long lastNs = -1;
        for (PromptTurn turn = schedule.next(); turn != null; turn = schedule.next())
        {
            assertThat(turn.timeNs()).isGreaterThanOrEqualTo(lastNs).isLessThan((long)(seconds * 1e9));
            lastNs = turn.timeNs();
            turns.add(turn);
        }
        return turns;
    }

    @Test
    void shouldResendTheSessionsEarlierTurnsThenANewQuestion()
    {
        final PromptWorkload chat = new PromptWorkload(1, 500, 0.0, 6, 2.0, 40, 60);
        final Map<Long, List<PromptTurn>> sessions = new HashMap<>();
        for (final PromptTurn turn : all(chat, 6.0, 60.0, 11))
        {
            sessions.computeIfAbsent(turn.sessionId(), k -> new ArrayList<>()).add(turn);
        }
        assertThat(sessions.size()).isGreaterThan(20);
        int fullSessions = 0;
        for (final List<PromptTurn> turns : sessions.values())
        {
            turns.sort((a, b) -> Integer.compare(a.turn(), b.turn()));
            fullSessions += turns.size() == 6 ? 1 : 0;
            for (int k = 0; k < turns.size(); k++)
            {
                final PromptTurn turn = turns.get(k);
                assertThat(turn.turn()).isEqualTo(k + 1);
                assertThat(turn.timeNs() - turns.get(0).timeNs()).isEqualTo(k * 2_000_000_000L);
                // system, (question, answer) x k, question
                assertThat(turn.segmentCount()).isEqualTo(1 + 2 * k + 1);
                assertThat(turn.promptTokens()).isEqualTo(500 + k * 100L + 40);
                assertThat(turn.segmentRole(0)).isEqualTo(PromptTurn.SYSTEM);
                assertThat(turn.segmentRole(turn.segmentCount() - 1)).isEqualTo(PromptTurn.USER);
                if (k > 0)
                {
                    final PromptTurn previous = turns.get(k - 1);
                    for (int i = 0; i < previous.segmentCount(); i++)
                    {
                        assertThat(turn.segmentId(i)).isEqualTo(previous.segmentId(i));
                        assertThat(turn.segmentTokens(i)).isEqualTo(previous.segmentTokens(i));
                    }
                    assertThat(turn.segmentRole(previous.segmentCount())).isEqualTo(PromptTurn.ASSISTANT);
                    // The earlier turn's full blocks are the first blocks of this one, and this one has more.
                    final long[] before = previous.blockHashes(16);
                    final long[] now = turn.blockHashes(16);
                    assertThat(now.length).isGreaterThan(before.length);
                    assertThat(Arrays.copyOf(now, before.length)).containsExactly(before);
                    final StringBuilder earlier = previous.appendText(new StringBuilder());
                    assertThat(turn.appendText(new StringBuilder()).toString()).startsWith(earlier.toString());
                }
            }
        }
        assertThat(fullSessions).isGreaterThan(10);
    }

    @Test
    void shouldShareSystemPromptsAcrossSessionsAndNothingElse()
    {
        final List<PromptTurn> turns = all(new PromptWorkload(4, 3000, 0.0, 1, 0.0, 50, 0), 50.0, 20.0, 5);
        // About 50/s for 20 s.
        assertThat(turns.size()).isBetween(850, 1150);
        final Map<Long, Integer> bySystem = new HashMap<>();
        for (final PromptTurn turn : turns)
        {
            assertThat(turn.segmentCount()).isEqualTo(2);
            bySystem.merge(turn.segmentId(0), 1, Integer::sum);
        }
        assertThat(bySystem).hasSize(4);
        assertThat(bySystem.values()).allSatisfy(count -> assertThat(count).isBetween(180, 320));
        // Two requests on one system prompt share exactly its 187 full blocks of 16 tokens (3,000 = 187 x 16 + 8).
        final PromptTurn a = turns.get(0);
        PromptTurn b = null;
        for (int i = 1; b == null; i++)
        {
            b = turns.get(i).segmentId(0) == a.segmentId(0) ? turns.get(i) : null;
        }
        final long[] ha = a.blockHashes(16);
        final long[] hb = b.blockHashes(16);
        int common = 0;
        while (common < ha.length && ha[common] == hb[common])
        {
            common++;
        }
        assertThat(common).isEqualTo(187);
        assertThat(a.sessionId()).isNotEqualTo(b.sessionId());
    }

    @Test
    void shouldSendTheHotShareToTheFirstSystemPrompt()
    {
        final List<PromptTurn> turns = all(new PromptWorkload(8, 100, 0.9, 1, 0.0, 10, 0), 100.0, 20.0, 3);
        final Map<Long, Integer> bySystem = new HashMap<>();
        for (final PromptTurn turn : turns)
        {
            bySystem.merge(turn.segmentId(0), 1, Integer::sum);
        }
        final int hottest = bySystem.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        // 0.9 + 0.1 / 8 of the requests.
        assertThat((double)hottest / turns.size()).isBetween(0.88, 0.94);
        assertThat(bySystem).hasSize(8);
    }

    @Test
    void shouldDrawTheSameRequestsForTheSameSeed()
    {
        final PromptWorkload chat = new PromptWorkload(2, 64, 0.5, 3, 1.0, 8, 8);
        final List<PromptTurn> one = all(chat, 10.0, 10.0, 9);
        final List<PromptTurn> two = all(chat, 10.0, 10.0, 9);
        final List<PromptTurn> other = all(chat, 10.0, 10.0, 10);
        assertThat(two).hasSameSizeAs(one);
        for (int i = 0; i < one.size(); i++)
        {
            assertThat(two.get(i).timeNs()).isEqualTo(one.get(i).timeNs());
            assertThat(two.get(i).blockHashes(4)).containsExactly(one.get(i).blockHashes(4));
        }
        assertThat(other.get(0).timeNs()).isNotEqualTo(one.get(0).timeNs());
    }
}
