package io.multifactor.gateway;

/**
 * The bytes of one streamed chunk, copied out of Vert.x's buffer for the SSE meter: one per event loop, shared by the
 * exchanges of that loop (the meter reads the copy before the handler returns, so no exchange needs its own).
 * <p>
 * This class is not threadsafe: one event loop owns an instance.
 */
final class ChunkScratch
{
    private byte[] bytes = new byte[16 * 1024];

    /**
     * @param length how many bytes the caller is about to copy in.
     * @return an array of at least that length (grown, once, for a larger chunk).
     */
    byte[] atLeast(final int length)
    {
        if (bytes.length < length)
        {
            bytes = new byte[Math.max(length, bytes.length * 2)];
        }
        return bytes;
    }
}
