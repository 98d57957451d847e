package io.multifactor.serving;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/** The index against a plain model of it: an insertion-ordered set, oldest first, cut to the capacity. */
class PrefixIndexTest
{
    private static final int BLOCK = 16;

    /** A plain LRU set of hashes: insert moves a hash to the newest end; a full set drops its oldest. */
    private static final class PlainLru
    {
        final LinkedHashSet<Long> set = new LinkedHashSet<>();
        int capacity;

        PlainLru(final int capacity)
        {
            this.capacity = capacity;
        }

        void insert(final long[] hashes, final int count)
        {
            for (int i = count - 1; i >= 0; i--)
            {
                set.remove(hashes[i]);
                set.add(hashes[i]);
                trim();
            }
        }

        void resize(final int next)
        {
            capacity = next;
            trim();
        }

        private void trim()
        {
            while (set.size() > capacity)
            {
                set.remove(set.iterator().next());
            }
        }

        int matched(final long[] hashes, final int count)
        {
            int n = 0;
            while (n < count && set.contains(hashes[n]))
            {
                n++;
            }
            return n;
        }
    }

    /** Prompt {@code seed}: up to 8 blocks, each one of 3 contents picked by the seed's digits, plus a partial tail. */
    private static PromptBlocks prompt(final int seed)
    {
        final StringBuilder text = new StringBuilder();
        int s = seed;
        final int blocks = s % 9;
        s /= 9;
        for (int i = 0; i < blocks; i++)
        {
            text.append(String.valueOf((char)('a' + s % 3)).repeat(BLOCK));
            s /= 3;
        }
        text.append("tail");
        final char[] chars = text.toString().toCharArray();
        final PromptBlocks prompt = new PromptBlocks();
        prompt.appendUtf8(chars, 0, chars.length, text.toString().getBytes(StandardCharsets.UTF_8).length);
        prompt.cut(BLOCK);
        return prompt;
    }

    @Test
    void shouldAgreeWithThePlainLruOnEverySequence()
    {
        qt().withFixedSeed(37L).withExamples(500)
            .forAll(integers().between(1, 24), lists().of(integers().between(0, 400_000)).ofSizeBetween(1, 80))
            .checkAssert((capacity, ops) -> check(capacity, ops));
    }

    private static void check(final int capacity, final List<Integer> ops)
    {
        final PrefixIndex index = new PrefixIndex(capacity);
        final PlainLru plain = new PlainLru(capacity);
        for (final int op : ops)
        {
            final PromptBlocks prompt = prompt(op / 4);
            final long[] hashes = prompt.hashes();
            final int n = prompt.blockCount();
            switch (op % 4)
            {
                case 0:
                case 1:
                    index.insert(hashes, n);
                    plain.insert(hashes, n);
                    break;
                case 2:
                    assertThat(index.matchedBlocks(hashes, n)).isEqualTo(plain.matched(hashes, n));
                    break;
                default:
                    final int next = 1 + (op / 4) % 24;
                    index.resize(next);
                    plain.resize(next);
                    break;
            }
            assertThat(index.size()).isEqualTo(plain.set.size());
            assertThat(index.capacity()).isEqualTo(plain.capacity);
        }
        // Every hash the model holds, the index holds, and nothing else of the prompts' hashes.
        for (final long hash : plain.set)
        {
            assertThat(index.matchedBlocks(new long[] {hash}, 1)).isEqualTo(1);
        }
    }

    @Test
    void shouldStopMatchingAtTheFirstMissAndEvictAChainFromItsEnd()
    {
        final PromptBlocks four = prompt(4 + 9 * (0 + 3 * (1 + 3 * (2 + 3 * 0))));
        assertThat(four.blockCount()).isEqualTo(4);
        final PrefixIndex index = new PrefixIndex(3);
        index.insert(four.hashes(), 4);
        // Capacity 3: the chain's last block went first, the first three stay.
        assertThat(index.matchedBlocks(four.hashes(), 4)).isEqualTo(3);
        final long[] holed = {four.hash(0), 42L, four.hash(2)};
        assertThat(index.matchedBlocks(holed, 3)).isEqualTo(1);
        assertThat(index.matchedBlocks(four.hashes(), 0)).isZero();
        assertThat(new PrefixIndex(8).matchedBlocks(four.hashes(), 4)).isZero();
    }

    @Test
    void shouldKeepMatchesConsistentWhileThreadsInsertAndLookUp() throws Exception
    {
        final PrefixIndex index = new PrefixIndex(64);
        final PromptBlocks[] prompts = new PromptBlocks[16];
        for (int i = 0; i < prompts.length; i++)
        {
            prompts[i] = prompt(8 + 9 * (i * 7 + 1000));
        }
        final Thread[] threads = new Thread[4];
        final Throwable[] failure = new Throwable[1];
        for (int t = 0; t < threads.length; t++)
        {
            final int id = t;
            threads[t] = new Thread(() ->
            {
                try
                {
                    for (int i = 0; i < 20_000; i++)
                    {
                        final PromptBlocks p = prompts[(i * 5 + id) % prompts.length];
                        if ((i + id) % 3 == 0)
                        {
                            index.insert(p.hashes(), p.blockCount());
                        }
                        else
                        {
                            final int m = index.matchedBlocks(p.hashes(), p.blockCount());
                            if (m < 0 || m > p.blockCount())
                            {
                                throw new AssertionError("match out of range: " + m);
                            }
                        }
                    }
                }
                catch (final Throwable ex)
                {
                    synchronized (failure)
                    {
                        failure[0] = ex;
                    }
                }
            });
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertThat(failure[0]).isNull();
        assertThat(index.size()).isBetween(1, 64);
        // After the writers stopped, the last prompt inserted is held in full.
        final PromptBlocks last = prompts[0];
        index.insert(last.hashes(), last.blockCount());
        assertThat(index.matchedBlocks(last.hashes(), last.blockCount())).isEqualTo(last.blockCount());
    }
}
