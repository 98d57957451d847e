package io.multifactor.gateway;

import io.multifactor.serving.JsonText;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gateway's access log ({@code --access-log FILE}, default stdout): one JSON object per line per request, with the
 * keys {@code time} (ISO-8601), {@code request_id}, {@code decision}, {@code model}, {@code backend}, {@code status},
 * {@code attempts}, {@code ttft_ms}, {@code tpot_ms}, {@code prompt_tokens}, {@code completion_tokens},
 * {@code outcome} and {@code key_id} (a value not known is {@code null}).
 * <p>
 * Off the event loop: an event loop only offers its request's {@link Entry} (a few fields) to a bounded queue, never
 * blocking; one writer thread formats the lines and writes them, flushing when the queue is empty. When the queue is
 * full (the disk or the terminal is slower than the traffic) the entry is dropped and counted ({@link #dropped()},
 * meter {@code mf.gateway.access_log.dropped}) rather than slowing the requests.
 * <p>
 * This class is threadsafe: {@link #offer} from any thread, {@link #close()} once from any thread.
 */
public final class AccessLog implements AutoCloseable
{
    /** Entries the queue holds at most before it drops. */
    public static final int QUEUE_CAPACITY = 65_536;

    private static final Entry POISON = new Entry();

    private final ArrayBlockingQueue<Entry> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final Writer out;
    private final boolean closeOut;
    private final Thread writer;
    private volatile boolean closed;

    private AccessLog(final Writer out, final boolean closeOut)
    {
        this.out = out;
        this.closeOut = closeOut;
        this.writer = new Thread(this::run, "mf-access-log");
        writer.setDaemon(true);
        writer.start();
    }

    /**
     * @param writer where the lines go (such as standard output); flushed but not closed by {@link #close()}.
     * @return a log writing to it.
     */
    public static AccessLog to(final Writer writer)
    {
        return new AccessLog(writer, false);
    }

    /**
     * @param file the log file, created or appended to.
     * @return a log appending to that file.
     * @throws IOException when the file cannot be opened for appending.
     */
    public static AccessLog append(final Path file) throws IOException
    {
        return new AccessLog(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND, StandardOpenOption.WRITE), true);
    }

    /**
     * Queues one request's line; never blocks.
     *
     * @param entry the request's fields, no longer touched by the caller.
     * @return false when the queue was full (or the log closed) and the entry was dropped.
     */
    public boolean offer(final Entry entry)
    {
        if (closed || !queue.offer(entry))
        {
            dropped.incrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * @param headerOrNull the request's {@code x-request-id}.
     * @return that id, or a new one ({@link #newRequestId()}) when it is missing, empty or longer than 200 characters.
     */
    public static String requestId(final String headerOrNull)
    {
        return headerOrNull == null || headerOrNull.isEmpty() || headerOrNull.length() > 200 ? newRequestId() :
            headerOrNull;
    }

    /** @return a new request id for a request that carries no {@code x-request-id}: 32 random hex digits. */
    public static String newRequestId()
    {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final String high = Long.toHexString(random.nextLong());
        final String low = Long.toHexString(random.nextLong());
        return "0".repeat(16 - high.length()) + high + "0".repeat(16 - low.length()) + low;
    }

    /** @return entries dropped because the queue was full or the log closed. */
    public long dropped()
    {
        return dropped.get();
    }

    /** @return lines written so far. */
    public long written()
    {
        return written.get();
    }

    /** Writes what is queued, then stops the writer (waits up to 5 s) and closes the file. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            queue.put(POISON);
            writer.join(5_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run()
    {
        final StringBuilder line = new StringBuilder(512);
        try
        {
            while (true)
            {
                Entry entry = queue.poll();
                if (entry == null)
                {
                    out.flush();
                    entry = queue.poll(1, TimeUnit.SECONDS);
                    if (entry == null)
                    {
                        continue;
                    }
                }
                if (entry == POISON)
                {
                    break;
                }
                line.setLength(0);
                entry.appendTo(line);
                line.append('\n');
                out.append(line);
                written.incrementAndGet();
            }
            out.flush();
        }
        catch (final IOException ex)
        {
            // The log's destination broke (disk full, pipe closed): the gateway serves on; what is left is dropped.
            closed = true;
            dropped.addAndGet(queue.size());
            queue.clear();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            if (closeOut)
            {
                try
                {
                    out.close();
                }
                catch (final IOException ignored)
                {
                    // Nothing more can be written either way.
                }
            }
        }
    }

    /**
     * One request's line, filled by the event loop that served it. A number not known is negative (written
     * {@code null}); a string not known is {@code null}.
     * <p>
     * This class is not threadsafe: filled by one thread, then handed to the log's writer through its queue.
     */
    public static final class Entry
    {
        /** When the request arrived, epoch milliseconds. */
        public long timeMs;
        /** The request's {@code x-request-id}. */
        public String requestId;
        /** The decision, or null (a model named directly, or a request refused before one was resolved). */
        public String decision;
        /** The model that served the last attempt, or null. */
        public String model;
        /** The backend of the last attempt, or null. */
        public String backend;
        /** The status the client got, 0 when the response was cut or the client went away. */
        public int status;
        /** Attempts made (0: refused before any). */
        public int attempts;
        /** TTFT in microseconds, -1 when not measured. */
        public long ttftMicros = -1;
        /** TPOT in microseconds, -1 when not measured. */
        public long tpotMicros = -1;
        /** The backend's {@code usage.prompt_tokens}, -1 when not reported. */
        public long promptTokens = -1;
        /** The backend's {@code usage.completion_tokens}, -1 when not reported. */
        public long completionTokens = -1;
        /** The selection's outcome ({@code scored}, {@code fallback_cheapest}, ...), or null when none was made. */
        public String outcome;
        /** The client key's id, or null without keys. */
        public String keyId;

        void appendTo(final StringBuilder sb)
        {
            sb.append("{\"time\":\"").append(Instant.ofEpochMilli(timeMs)).append('"');
            string(sb, "request_id", requestId);
            string(sb, "decision", decision);
            string(sb, "model", model);
            string(sb, "backend", backend);
            sb.append(",\"status\":").append(status);
            sb.append(",\"attempts\":").append(attempts);
            millis(sb, "ttft_ms", ttftMicros);
            millis(sb, "tpot_ms", tpotMicros);
            count(sb, "prompt_tokens", promptTokens);
            count(sb, "completion_tokens", completionTokens);
            string(sb, "outcome", outcome);
            string(sb, "key_id", keyId);
            sb.append('}');
        }

        private static void string(final StringBuilder sb, final String key, final String valueOrNull)
        {
            sb.append(",\"").append(key).append("\":");
            if (valueOrNull == null)
            {
                sb.append("null");
            }
            else
            {
                sb.append('"');
                JsonText.appendEscaped(sb, valueOrNull);
                sb.append('"');
            }
        }

        private static void millis(final StringBuilder sb, final String key, final long micros)
        {
            sb.append(",\"").append(key).append("\":");
            if (micros < 0)
            {
                sb.append("null");
            }
            else
            {
                sb.append(micros / 1000).append('.').append((char)('0' + micros / 100 % 10))
                    .append((char)('0' + micros / 10 % 10)).append((char)('0' + micros % 10));
            }
        }

        private static void count(final StringBuilder sb, final String key, final long value)
        {
            sb.append(",\"").append(key).append("\":");
            if (value < 0)
            {
                sb.append("null");
            }
            else
            {
                sb.append(value);
            }
        }
    }
}
