package io.multifactor.kernel.signal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServerLoadTableTest
{
    private static final long SECOND = 1_000_000_000L;
    private static final ServerBackend A1 = new ServerBackend("a", false, "10.0.0.1", 8000, ServerKind.VLLM);
    private static final ServerBackend A2 = new ServerBackend("a", false, "10.0.0.2", 8000, ServerKind.VLLM);
    private static final ServerBackend B1 = new ServerBackend("b", true, "::1", 30000, ServerKind.SGLANG);

    @Test
    void shouldKeyBackendsByOriginAndGroupThemByModel()
    {
        final ServerLoadTable table = new ServerLoadTable(List.of(A1, B1, A2, A1), 2 * SECOND, 0);
        assertEquals(2, table.modelCount());
        assertEquals(3, table.backendCount());
        assertEquals("https://[::1]:30000", B1.key());
        assertEquals(0, table.modelIndex("a"));
        assertEquals(1, table.backendIndex("a", "http://10.0.0.2:8000"));
        assertEquals(2, table.backendIndex("b", B1.key()));
        assertEquals(ServerLoadTable.NOT_FOUND, table.backendIndex("b", A1.key()));
        assertEquals(ServerLoadTable.NOT_FOUND, table.modelIndex("c"));
    }

    @Test
    void shouldBeMissingUntilAGoodScrapeArrives()
    {
        final ServerLoadTable table = new ServerLoadTable(List.of(A1, A2), 2 * SECOND, 0);
        assertTrue(Double.isNaN(table.queue(0, SECOND)));
        assertTrue(Double.isNaN(table.kvCache(0, SECOND)));
        assertFalse(table.anyFresh(0, SECOND));
        assertEquals(ServerLoadTable.NEVER, table.lastResponseNs(0));
    }

    @Test
    void shouldTakeTheSmallestWaitingAndKvUseAmongFreshBackends()
    {
        final ServerLoadTable table = new ServerLoadTable(List.of(A1, A2), 2 * SECOND, 0);
        assertTrue(table.recordLoad(0, 7, 3, 0.2, SECOND));
        assertTrue(table.recordLoad(1, 2, Double.NaN, 0.9, SECOND));
        assertEquals(2.0, table.queue(0, SECOND));
        assertEquals(0.2, table.kvCache(0, SECOND));
        assertEquals(3.0, table.running(0));
        assertTrue(Double.isNaN(table.running(1)));
        // backend 1 answers again later: backend 0 goes stale first, then only backend 1 counts.
        assertTrue(table.recordLoad(1, 4, 1, 0.5, 2 * SECOND));
        assertEquals(4.0, table.queue(0, 3 * SECOND));
        assertEquals(0.5, table.kvCache(0, 3 * SECOND));
        assertTrue(table.isFresh(1, 4 * SECOND - 1));
        assertFalse(table.isFresh(1, 4 * SECOND), "fresh for less than stale_after, not for exactly stale_after");
        assertTrue(Double.isNaN(table.queue(0, 4 * SECOND)));
        assertEquals(4.0, table.waiting(1), "the last values stay readable once stale");
    }

    @Test
    void shouldRefuseOutOfRangeValuesAndKeepThePreviousOnes()
    {
        final ServerLoadTable table = new ServerLoadTable(List.of(A1), SECOND, 0);
        assertTrue(table.recordLoad(0, 1, 1, 0.5, 10));
        assertFalse(table.recordLoad(0, -1, 1, 0.5, 20));
        assertFalse(table.recordLoad(0, Double.NaN, 1, Double.NaN, 20));
        assertFalse(table.recordLoad(0, Double.POSITIVE_INFINITY, 1, 0.5, 20));
        assertFalse(table.recordLoad(0, 1, 1, 1.5, 20));
        assertFalse(table.recordLoad(0, 1, 1, Double.NEGATIVE_INFINITY, 20));
        assertFalse(table.recordLoad(0, 1, -3, 0.5, 20));
        assertEquals(10, table.lastResponseNs(0));
        assertEquals(1.0, table.waiting(0));
    }

    @Test
    void aValueNotReportedShouldBeMissingWithoutHidingTheOtherBackends()
    {
        // NaN is "not reported" (a direct report of one value; a scrape always has both): skipped by the minimum.
        final ServerLoadTable table = new ServerLoadTable(List.of(A1, A2), 10 * SECOND, 0);
        assertTrue(table.recordLoad(0, Double.NaN, Double.NaN, 0.3, SECOND));
        assertTrue(table.recordLoad(1, 4, Double.NaN, Double.NaN, SECOND));
        assertEquals(4.0, table.queue(0, 2 * SECOND));
        assertEquals(0.3, table.kvCache(0, 2 * SECOND));
        assertTrue(table.recordLoad(0, Double.NaN, Double.NaN, 0.6, 3 * SECOND));
        assertEquals(0.6, table.kvCache(0, 4 * SECOND));
    }

    @Test
    void successorShouldKeepTheBackendsThatStayAndForgetTheOthers()
    {
        final ServerLoadTable first = new ServerLoadTable(List.of(A1, A2, B1), 2 * SECOND, 5);
        first.recordLoad(0, 3, 1, 0.3, SECOND);
        first.recordLoad(1, 1, 1, 0.1, SECOND);
        first.recordLoad(2, 9, 1, 0.9, SECOND);
        final ServerBackend c = new ServerBackend("c", false, "10.0.0.9", 8000, ServerKind.VLLM);
        // A2 leaves, B1 moves to model c's list under the same origin (a different model: not the same entry).
        final ServerBackend b1AsC = new ServerBackend("c", true, "::1", 30000, ServerKind.SGLANG);
        final ServerLoadTable next = ServerLoadTable.successor(first, List.of(c, b1AsC, A1), 4 * SECOND, 77);
        final int a = next.modelIndex("a");
        assertEquals(3.0, next.queue(a, SECOND + 1));
        assertEquals(0.3, next.kvCache(a, SECOND + 1));
        assertEquals(SECOND, next.lastResponseNs(next.backendIndex("a", A1.key())));
        assertEquals(ServerLoadTable.NEVER, next.lastResponseNs(next.backendIndex("c", b1AsC.key())));
        assertEquals(5, next.appearedNs(a), "a model that stays keeps the time it appeared");
        assertEquals(77, next.appearedNs(next.modelIndex("c")));
        assertEquals(4 * SECOND, next.staleAfterNs());
        assertTrue(Double.isNaN(first.queue(first.modelIndex("a"), 10 * SECOND)));
    }

    @Test
    @Timeout(30)
    void readersShouldNeverSeeAValueThatWasNotWritten() throws InterruptedException
    {
        // The writer stores waiting = i and kv = i / N together; a reader that saw a torn slot would see a KV use
        // that goes backwards, or a queue from a later write before an earlier one.
        final int writes = 200_000;
        final ServerLoadTable table = new ServerLoadTable(List.of(A1), Long.MAX_VALUE / 4, 0);
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicReference<String> failure = new AtomicReference<>();
        final Thread reader = new Thread(() ->
        {
            double lastQueue = -1;
            double lastKv = -1;
            while (!done.get() && failure.get() == null)
            {
                final double queue = table.queue(0, 1);
                final double kv = table.kvCache(0, 1);
                if (!Double.isNaN(queue))
                {
                    if (queue < lastQueue || queue != Math.rint(queue) || queue > writes)
                    {
                        failure.set("queue " + queue + " after " + lastQueue);
                    }
                    lastQueue = queue;
                }
                if (!Double.isNaN(kv))
                {
                    if (kv < lastKv || kv > 1.0)
                    {
                        failure.set("kv " + kv + " after " + lastKv);
                    }
                    lastKv = kv;
                }
            }
        });
        reader.start();
        for (int i = 1; i <= writes; i++)
        {
            table.recordLoad(0, i, i, (double)i / writes, i);
        }
        done.set(true);
        reader.join();
        assertNull(failure.get());
        assertEquals(writes, table.waiting(0));
    }

    @Test
    @Timeout(30)
    void twoWritersShouldNeverMixTheirValuesAndTheNewestResponseShouldStay() throws InterruptedException
    {
        // Writer w stores waiting = running = t and kv = t / N with responseNs = t, for t = w, w + 2, ...: a slot that
        // mixed two writes would hold fields of two different t; an older write landing last would go back in time.
        final int writes = 100_000;
        final ServerLoadTable table = new ServerLoadTable(List.of(A1), Long.MAX_VALUE / 4, 0);
        final AtomicReference<String> failure = new AtomicReference<>();
        final Thread[] writers = new Thread[2];
        // A writer may give up when the other is preempted while it holds the slot (a lost write, as the table
        // documents): each remembers its last write that was taken.
        final long[] lastTaken = new long[2];
        for (int w = 0; w < 2; w++)
        {
            final int writer = w;
            writers[w] = new Thread(() ->
            {
                for (int t = writer + 1; t <= 2 * writes; t += 2)
                {
                    if (table.recordLoad(0, t, t, (double)t / (2 * writes), t))
                    {
                        lastTaken[writer] = t;
                    }
                    table.countScrape(0, ServerLoadTable.SCRAPE_OK);
                }
            });
        }
        final AtomicBoolean done = new AtomicBoolean();
        final Thread successors = new Thread(() ->
        {
            // A reload copying the slot while both write: every copy is one write's values.
            while (!done.get() && failure.get() == null)
            {
                final ServerLoadTable copy = ServerLoadTable.successor(table, List.of(A1), Long.MAX_VALUE / 4, 0);
                final long t = copy.lastResponseNs(0);
                if (t != ServerLoadTable.NEVER && (copy.waiting(0) != t || copy.running(0) != t ||
                    copy.kvUse(0) != (double)t / (2 * writes)))
                {
                    failure.compareAndSet(null, "copy mixed: t=" + t + " waiting=" + copy.waiting(0));
                }
            }
        });
        successors.start();
        for (final Thread writer : writers)
        {
            writer.start();
        }
        for (final Thread writer : writers)
        {
            writer.join();
        }
        done.set(true);
        successors.join();
        assertNull(failure.get());
        final long newest = Math.max(lastTaken[0], lastTaken[1]);
        assertEquals(newest, table.lastResponseNs(0));
        assertEquals((double)newest, table.waiting(0));
        assertEquals((double)newest, table.running(0));
        assertEquals((double)newest / (2 * writes), table.kvUse(0));
        assertEquals(2L * writes, table.scrapes(0, ServerLoadTable.SCRAPE_OK));
    }

    @Test
    void aModelShouldBeStaleOnlyAfterItsGraceWithNoFreshBackend()
    {
        final ServerLoadTable table = new ServerLoadTable(List.of(A1, A2), 2 * SECOND, 10 * SECOND);
        assertFalse(table.stale(0, 11 * SECOND));
        assertTrue(table.stale(0, 12 * SECOND));
        assertTrue(table.recordLoad(1, 0, Double.NaN, 0.1, 12 * SECOND));
        assertFalse(table.stale(0, 13 * SECOND));
        assertTrue(table.stale(0, 14 * SECOND));
        // An older response than the one stored changes nothing.
        assertTrue(table.recordLoad(1, 5, Double.NaN, 0.5, 11 * SECOND));
        assertEquals(0.0, table.waiting(1));
        assertEquals(12 * SECOND, table.lastResponseNs(1));
    }
}
