package io.multifactor.kernel.session;

import io.multifactor.kernel.clock.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SessionTable} on one thread against a plain model of it: a map of key -> (model, turns, last seen), where a
 * new key of a full set forgets an idle entry of that set, else its least recently seen one (counted as evicted).
 * Time comes from a {@link ManualClock}.
 */
class SessionTableTest
{
    private static final long IDLE_NS = 1_000;

    /** The plain model: the entries of each set, nothing shared, no concurrency. */
    private static final class PlainModel
    {
        final SessionTable shape;
        final Map<Long, long[]> entries = new HashMap<>();

        PlainModel(final SessionTable shape)
        {
            this.shape = shape;
        }

        long lookup(final long key, final long nowNs)
        {
            final long[] e = entries.get(key);
            return e == null || nowNs - e[2] >= IDLE_NS ? SessionTable.NO_ENTRY : SessionTable.value((int)e[0], e[1]);
        }

        int update(final long key, final int model, final long nowNs)
        {
            final long[] e = entries.get(key);
            if (e != null)
            {
                final boolean live = nowNs - e[2] < IDLE_NS;
                e[1] = live && e[0] == model ? e[1] + 1 : 1;
                e[0] = model;
                e[2] = nowNs;
                return SessionTable.UPDATED;
            }
            final int set = shape.setOf(key);
            int inSet = 0;
            Long idle = null;
            Long oldest = null;
            long oldestSeen = Long.MAX_VALUE;
            for (final Map.Entry<Long, long[]> other : entries.entrySet())
            {
                if (shape.setOf(other.getKey()) != set)
                {
                    continue;
                }
                inSet++;
                if (idle == null && nowNs - other.getValue()[2] >= IDLE_NS)
                {
                    idle = other.getKey();
                }
                if (other.getValue()[2] < oldestSeen)
                {
                    oldestSeen = other.getValue()[2];
                    oldest = other.getKey();
                }
            }
            int result = SessionTable.UPDATED;
            if (inSet == shape.waysOf(set))
            {
                entries.remove(idle != null ? idle : oldest);
                result = idle != null ? SessionTable.UPDATED : SessionTable.EVICTED;
            }
            entries.put(key, new long[] {model, 1, nowNs});
            return result;
        }

        int live(final long nowNs)
        {
            int live = 0;
            for (final long[] e : entries.values())
            {
                live += nowNs - e[2] < IDLE_NS ? 1 : 0;
            }
            return live;
        }
    }

    @Test
    void shouldAgreeWithThePlainModelOnLookupsEvictionsAndTheLiveCount()
    {
        for (final int maxSessions : new int[] {1, 5, 8, 9, 37, 200})
        {
            final SessionTable table = new SessionTable(maxSessions);
            final PlainModel model = new PlainModel(table);
            final ManualClock clock = new ManualClock(10_000);
            final SplittableRandom random = new SplittableRandom(maxSessions);
            int evictions = 0;
            for (int step = 0; step < 20_000; step++)
            {
                // Distinct times: the least recently seen entry of a set is never a tie.
                clock.advanceNs(1 + random.nextInt(30));
                final long key = random.nextInt(3 * maxSessions) * 0x9E3779B97F4A7C15L;
                final long now = clock.nanoTime();
                assertThat(table.lookup(key, now, IDLE_NS)).as("lookup %d", step).isEqualTo(model.lookup(key, now));
                if (random.nextInt(4) > 0)
                {
                    final int chosen = random.nextInt(3);
                    final int result = table.update(key, chosen, now, IDLE_NS);
                    assertThat(result).as("update %d", step).isEqualTo(model.update(key, chosen, now));
                    evictions += result == SessionTable.EVICTED ? 1 : 0;
                    assertThat(table.occurrences(key)).isEqualTo(1);
                }
                assertThat(table.liveCount(now, IDLE_NS)).isEqualTo(model.live(now)).isLessThanOrEqualTo(maxSessions);
            }
            assertThat(evictions).as("the generator reaches eviction").isPositive();
        }
    }

    @Test
    void shouldExpireAnEntryIdleForExactlyTheTimeout()
    {
        final SessionTable table = new SessionTable(4);
        table.update(7L, 2, 100, IDLE_NS);
        assertThat(SessionTable.modelId(table.lookup(7L, 100 + IDLE_NS - 1, IDLE_NS))).isEqualTo(2);
        assertThat(table.lookup(7L, 100 + IDLE_NS, IDLE_NS)).isEqualTo(SessionTable.NO_ENTRY);
        // An expired entry of the key starts again at one turn.
        table.update(7L, 2, 100 + IDLE_NS, IDLE_NS);
        assertThat(SessionTable.turns(table.lookup(7L, 100 + IDLE_NS, IDLE_NS))).isEqualTo(1);
    }

    @Test
    void shouldCountTurnsOnOneModelAndRestartThemOnAnother()
    {
        final SessionTable table = new SessionTable(100);
        for (int i = 1; i <= 5; i++)
        {
            table.update(1L, 0, i, IDLE_NS);
            assertThat(SessionTable.turns(table.lookup(1L, i, IDLE_NS))).isEqualTo(i);
        }
        table.update(1L, 3, 6, IDLE_NS);
        final long entry = table.lookup(1L, 6, IDLE_NS);
        assertThat(SessionTable.modelId(entry)).isEqualTo(3);
        assertThat(SessionTable.turns(entry)).isEqualTo(1);
    }

    @Test
    void shouldSplitMaxSessionsIntoSetsThatAddUpToIt()
    {
        for (int max = 1; max < 300; max++)
        {
            final SessionTable table = new SessionTable(max);
            int ways = 0;
            for (int set = 0; set < table.setCount(); set++)
            {
                assertThat(table.waysOf(set)).isBetween(1, SessionTable.WAYS);
                ways += table.waysOf(set);
            }
            assertThat(ways).isEqualTo(max);
        }
    }
}
