package io.multifactor.serving;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * One request's prompt as bytes, and those bytes cut into blocks hashed as a chain: the input of prefix-cache
 * affinity. {@link OpenAiRequestReader} writes the bytes while it parses the body (once per request): for chat, each
 * message as its {@code role}, a 0 byte, its {@code content} text (a string, or the {@code text} of its parts in
 * order), a 0 byte; for completions the {@code prompt} text (a token id of a pre-tokenized prompt as its 4 bytes,
 * little-endian); for responses {@code instructions} then the text of {@code input}. {@link #cut} cuts them into full
 * blocks of a model's {@code block_bytes} (a trailing partial block is ignored) and hashes block i over blocks 0..i:
 * {@code hash(i) = hashBlock(hash(i - 1), block i)}, {@code hash(-1) = }{@link #CHAIN_SEED}, so two prompts share the
 * hash of block i exactly when (hash collisions aside) they share their first i + 1 blocks.
 * <p>
 * Reusable: {@link #clear()} keeps the arrays, so after warm-up (a prompt as long as the longest seen) nothing is
 * allocated, per block or per request. The bytes are bounded by the body's size (at most twice it, for token ids).
 * <p>
 * This class is not threadsafe: it belongs to one request (one {@link OpenAiRequest}) at a time.
 */
public final class PromptBlocks
{
    /** The hash a chain starts from (the "block -1" of every prompt). */
    public static final long CHAIN_SEED = 0x6D66_7072_6566_6978L;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long K1 = 0x9E37_79B9_7F4A_7C15L;
    private static final long K2 = 0xC2B2_AE3D_27D4_EB4FL;
    private static final long K3 = 0xBF58_476D_1CE4_E5B9L;
    private static final long K4 = 0x94D0_49BB_1331_11EBL;

    private byte[] bytes = new byte[256];
    private int length;
    private long[] hashes = new long[16];
    private int blockCount;
    private int cutBlockBytes;

    /** @return this, emptied for the next prompt (arrays kept). */
    public PromptBlocks clear()
    {
        length = 0;
        blockCount = 0;
        cutBlockBytes = 0;
        return this;
    }

    /** @return how many prompt bytes were written. */
    public int length()
    {
        return length;
    }

    /**
     * @param index 0 .. {@link #length()} - 1.
     * @return that prompt byte.
     */
    public byte byteAt(final int index)
    {
        if (index < 0 || index >= length)
        {
            throw new IndexOutOfBoundsException(index);
        }
        return bytes[index];
    }

    /**
     * Cuts the bytes into full blocks and hashes them as a chain; a second call with the same size reuses the result.
     * Allocates only to grow the hash array past the longest prompt seen.
     *
     * @param blockBytes the block size, >= 1.
     * @return the number of full blocks ({@link #length()} / blockBytes).
     */
    public int cut(final int blockBytes)
    {
        if (blockBytes == cutBlockBytes)
        {
            return blockCount;
        }
        final int n = length / blockBytes;
        if (hashes.length < n)
        {
            hashes = new long[Math.max(n, hashes.length * 2)];
        }
        long chain = CHAIN_SEED;
        final byte[] b = bytes;
        final long[] h = hashes;
        for (int i = 0; i < n; i++)
        {
            chain = hashBlock(chain, b, i * blockBytes, blockBytes);
            h[i] = chain;
        }
        blockCount = n;
        cutBlockBytes = blockBytes;
        return n;
    }

    /** @return the blocks of the last {@link #cut}, 0 before one. */
    public int blockCount()
    {
        return blockCount;
    }

    /** @return the block size of the last {@link #cut}, 0 before one (or after new bytes). */
    public int cutBlockBytes()
    {
        return cutBlockBytes;
    }

    /**
     * @param block 0 .. {@link #blockCount()} - 1.
     * @return the chained hash of blocks 0..block of the last {@link #cut}.
     */
    public long hash(final int block)
    {
        if (block < 0 || block >= blockCount)
        {
            throw new IndexOutOfBoundsException(block);
        }
        return hashes[block];
    }

    /** @return the hash array of the last {@link #cut} (its first {@link #blockCount()} entries), shared, not a copy. */
    long[] hashes()
    {
        return hashes;
    }

    /**
     * The one 64-bit hash of a block: 8 bytes at a time (little-endian words, the tail zero-padded), each word
     * multiplied, xored into the state, rotated and multiplied; the length mixed in; finished with a 64-bit avalanche
     * (xor-shift-multiply rounds). Not cryptographic: a collision costs a misrouted request, never a wrong answer.
     *
     * @param previous the chain so far ({@link #CHAIN_SEED} before the first block).
     * @param b the bytes.
     * @param offset where the block starts.
     * @param blockLength its length.
     * @return the chain including this block.
     */
    public static long hashBlock(final long previous, final byte[] b, final int offset, final int blockLength)
    {
        long h = previous ^ (blockLength * K1);
        final int end = offset + blockLength;
        int i = offset;
        for (; i + 8 <= end; i += 8)
        {
            h = Long.rotateLeft(h ^ ((long)LONGS.get(b, i) * K1), 29) * K2;
        }
        if (i < end)
        {
            long tail = 0;
            for (int shift = 0; i < end; i++, shift += 8)
            {
                tail |= (b[i] & 0xFFL) << shift;
            }
            h = Long.rotateLeft(h ^ (tail * K1), 29) * K2;
        }
        h ^= h >>> 31;
        h *= K3;
        h ^= h >>> 29;
        h *= K4;
        return h ^ (h >>> 32);
    }

    // ---- writing (the reader, while it parses) ----

    void appendByte(final int value)
    {
        ensure(1);
        bytes[length++] = (byte)value;
        cutBlockBytes = 0;
    }

    /** Appends a pre-tokenized prompt's token id as 4 bytes, little-endian. */
    void appendTokenId(final long tokenId)
    {
        ensure(4);
        final int v = (int)tokenId;
        bytes[length++] = (byte)v;
        bytes[length++] = (byte)(v >>> 8);
        bytes[length++] = (byte)(v >>> 16);
        bytes[length++] = (byte)(v >>> 24);
        cutBlockBytes = 0;
    }

    /**
     * Appends characters as UTF-8 (a lone surrogate as U+FFFD's 3 bytes, as an encoder replaces it), as the reader does
     * with each text of the prompt; public for benchmarks and simulators that build prompts without a JSON body.
     * Allocates only to grow past the longest prompt seen.
     *
     * @param chars the characters.
     * @param offset where they start.
     * @param count how many.
     * @param utf8Bytes their UTF-8 length, what is reserved (3 x count is always enough).
     */
    public void appendUtf8(final char[] chars, final int offset, final int count, final long utf8Bytes)
    {
        ensure(utf8Bytes);
        final byte[] b = bytes;
        int at = length;
        final int end = offset + count;
        for (int i = offset; i < end; i++)
        {
            final char c = chars[i];
            if (c < 0x80)
            {
                b[at++] = (byte)c;
            }
            else if (c < 0x800)
            {
                b[at++] = (byte)(0xC0 | (c >>> 6));
                b[at++] = (byte)(0x80 | (c & 0x3F));
            }
            else if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(chars[i + 1]))
            {
                final int cp = Character.toCodePoint(c, chars[++i]);
                b[at++] = (byte)(0xF0 | (cp >>> 18));
                b[at++] = (byte)(0x80 | ((cp >>> 12) & 0x3F));
                b[at++] = (byte)(0x80 | ((cp >>> 6) & 0x3F));
                b[at++] = (byte)(0x80 | (cp & 0x3F));
            }
            else
            {
                final int cp = Character.isSurrogate(c) ? 0xFFFD : c;
                b[at++] = (byte)(0xE0 | (cp >>> 12));
                b[at++] = (byte)(0x80 | ((cp >>> 6) & 0x3F));
                b[at++] = (byte)(0x80 | (cp & 0x3F));
            }
        }
        length = at;
        cutBlockBytes = 0;
    }

    /**
     * Moves the bytes written since {@code from} to {@code to} ({@code to <= from}), shifting the bytes between them after:
     * for a message whose {@code role} comes after its {@code content}, or {@code instructions} after {@code input}.
     * In place (three reversals), allocates nothing.
     */
    void moveTailTo(final int from, final int to)
    {
        if (to >= from || from >= length)
        {
            return;
        }
        reverse(to, from);
        reverse(from, length);
        reverse(to, length);
        cutBlockBytes = 0;
    }

    private void reverse(final int from, final int to)
    {
        final byte[] b = bytes;
        for (int i = from, j = to - 1; i < j; i++, j--)
        {
            final byte t = b[i];
            b[i] = b[j];
            b[j] = t;
        }
    }

    private void ensure(final long more)
    {
        final long needed = length + more;
        if (needed > bytes.length)
        {
            final long grown = Math.max(needed, bytes.length * 2L);
            bytes = java.util.Arrays.copyOf(bytes, (int)Math.min(Integer.MAX_VALUE - 8, grown));
        }
    }
}
