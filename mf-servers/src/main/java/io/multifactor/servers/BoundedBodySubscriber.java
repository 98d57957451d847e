package io.multifactor.servers;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads a response body into a byte array that grows (doubling) up to a limit, and stops at the limit: the
 * subscription is cancelled and the body's result is {@link #OVER_LIMIT}; nothing beyond the limit is ever held.
 * <p>
 * This class is threadsafe for the HTTP client's use: the client calls it serially from its threads; {@link #abandon()}
 * may be called from any thread, after which it stops at the next chunk.
 */
final class BoundedBodySubscriber implements HttpResponse.BodySubscriber<Integer>
{
    /** Body result of a body longer than the limit. */
    static final int OVER_LIMIT = -1;

    /** Body result of a body whose read was abandoned (the scrape timed out or its backend left). */
    static final int ABANDONED = -2;

    private final CompletableFuture<Integer> result = new CompletableFuture<>();
    private final int limitBytes;
    private byte[] buffer;
    private int length;
    private Flow.Subscription subscription;
    private volatile boolean abandoned;

    /**
     * @param buffer the array to fill first (reused across scrapes), grown up to the limit when the body needs it.
     * @param limitBytes the most bytes read.
     */
    BoundedBodySubscriber(final byte[] buffer, final int limitBytes)
    {
        this.buffer = buffer;
        this.limitBytes = limitBytes;
    }

    /** @return the array holding the body (valid once the result completed with a length). */
    byte[] buffer()
    {
        return buffer;
    }

    /** Stops reading at the next chunk, completing with {@link #ABANDONED}. */
    void abandon()
    {
        abandoned = true;
        final Flow.Subscription s = subscription;
        if (s != null)
        {
            s.cancel();
        }
        result.complete(ABANDONED);
    }

    @Override
    public CompletionStage<Integer> getBody()
    {
        return result;
    }

    @Override
    public void onSubscribe(final Flow.Subscription subscription)
    {
        this.subscription = subscription;
        if (abandoned)
        {
            subscription.cancel();
            return;
        }
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(final List<ByteBuffer> items)
    {
        if (result.isDone())
        {
            return;
        }
        for (final ByteBuffer item : items)
        {
            final int n = item.remaining();
            if (n > limitBytes - length)
            {
                subscription.cancel();
                result.complete(OVER_LIMIT);
                return;
            }
            if (length + n > buffer.length)
            {
                int capacity = Math.max(buffer.length, 4096);
                while (capacity < length + n)
                {
                    capacity = (int)Math.min((long)capacity * 2, limitBytes);
                }
                buffer = java.util.Arrays.copyOf(buffer, capacity);
            }
            item.get(buffer, length, n);
            length += n;
        }
    }

    @Override
    public void onError(final Throwable throwable)
    {
        result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete()
    {
        result.complete(length);
    }
}
