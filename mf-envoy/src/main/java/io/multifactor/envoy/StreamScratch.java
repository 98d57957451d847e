package io.multifactor.envoy;

import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.serving.OpenAiRequest;
import io.multifactor.serving.RequestFlow;

/**
 * What one stream needs while it is open and nothing after: its request flow (with its lifecycle), the parsed body and
 * the body and chunk buffers. Pooled by {@link ExtProcContext}: a stream takes one when it opens and gives it back when it closes,
 * with its lease ended (so the flow may start again).
 * <p>
 * This class is not threadsafe: one stream owns an instance at a time.
 */
final class StreamScratch
{
    /** Buffers larger than this are not kept when the scratch goes back to the pool. */
    static final int MAX_KEPT_BUFFER_BYTES = 64 * 1024;

    private static final byte[] EMPTY = new byte[0];

    final RequestFlow flow;
    final OpenAiRequest parsed = new OpenAiRequest();
    byte[] body = EMPTY;
    byte[] chunk = EMPTY;

    StreamScratch(final MultiFactorEngine engine)
    {
        // One attempt: Envoy forwards the request, and retries by its own route configuration.
        flow = new RequestFlow(engine, 1);
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
