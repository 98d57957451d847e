package io.multifactor.envoy;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.OpenAiRequest;
import io.multifactor.serving.RequestLifecycle;

/**
 * What one stream needs while it is open and nothing after: its request lifecycle, the parsed body and the body and
 * chunk buffers. Pooled by {@link ExtProcContext}: a stream takes one when it opens and gives it back when it closes,
 * with its lease ended (so the lifecycle may start again).
 * <p>
 * This class is not threadsafe: one stream owns an instance at a time.
 */
final class StreamScratch
{
    /** Buffers larger than this are not kept when the scratch goes back to the pool. */
    static final int MAX_KEPT_BUFFER_BYTES = 64 * 1024;

    private static final byte[] EMPTY = new byte[0];

    final RequestLifecycle lifecycle;
    final OpenAiRequest parsed = new OpenAiRequest();
    byte[] body = EMPTY;
    byte[] chunk = EMPTY;

    StreamScratch(final MultiFactorEngine engine)
    {
        lifecycle = new RequestLifecycle(engine);
    }

    /** Drops buffers that grew past {@link #MAX_KEPT_BUFFER_BYTES}, before going back to the pool. */
    void trim()
    {
        if (body.length > MAX_KEPT_BUFFER_BYTES)
        {
            body = EMPTY;
        }
        if (chunk.length > MAX_KEPT_BUFFER_BYTES)
        {
            chunk = EMPTY;
        }
    }
}
