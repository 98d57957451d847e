package io.multifactor.kernel.signal;

import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the model servers last said about their load: per backend the waiting and running requests, the KV-cache use
 * (a fraction in [0, 1]) and the time the response of its last good scrape arrived, in the engine clock's
 * nanoseconds; per model the queue W(m) (the smallest waiting count among its fresh backends) and the KV-cache use K(m)
 * (the smallest among its fresh backends), both missing ({@code NaN}) when no backend of the model is fresh. A backend
 * is fresh while less than {@link #staleAfterNs()} has passed since that response.
 * <p>
 * The layout (which models, which backends) is fixed at construction; a new backend set is a new table made by
 * {@link #successor}, which keeps the values of the backends that stay (same model, same {@link ServerBackend#key()}).
 * Each backend's values sit in one 64-byte slot guarded by a sequence number (a seqlock), with the counts of its
 * scrapes by result:
 * <pre>
 *   slot b: | seq | waiting (double bits) | running (double bits) | kv use (double bits) | responseNs |
 *           | ok scrapes | failed scrapes | refused scrapes |
 * </pre>
 * <p>
 * This class is threadsafe: {@link #recordLoad} and {@link #countScrape} may be called from any number of threads (the
 * scrape agent, and gateways feeding ORCA load reports); a writer claims a slot by moving its sequence from even to odd
 * with one compare-and-swap, so two writers of one backend never mix their values. The readers never block, never
 * allocate and never see a torn slot (a slot being written while they read it is read again, a bounded number of
 * times, then treated as stale for that read).
 */
public final class ServerLoadTable
{
    /** Returned by the lookups for a name the table does not hold. */
    public static final int NOT_FOUND = -1;

    /** {@link #lastResponseNs} of a backend that never answered a good scrape. */
    public static final long NEVER = Long.MIN_VALUE;

    private static final int STRIDE = 8;
    private static final int SEQ = 0;
    private static final int WAITING = 1;
    private static final int RUNNING = 2;
    private static final int KV = 3;
    private static final int RESPONSE_NS = 4;
    private static final int COUNTS = 5;
    private static final int MAX_READ_ATTEMPTS = 64;
    private static final int MAX_WRITE_ATTEMPTS = 1024;

    /** {@link #countScrape} result: a scrape (or load report) whose values were stored. */
    public static final int SCRAPE_OK = 0;

    /** {@link #countScrape} result: a scrape that got no usable response (no connection, timeout, a non-2xx status). */
    public static final int SCRAPE_FAILED = 1;

    /** {@link #countScrape} result: a response too large, or without usable values. */
    public static final int SCRAPE_REFUSED = 2;

    /** Number of scrape results. */
    public static final int SCRAPE_RESULTS = 3;

    private final long staleAfterNs;
    private final String[] modelNames;
    private final long[] modelAppearedNs;
    /** Backends of model m are the slots {@code modelFirstBackend[m] .. modelFirstBackend[m + 1] - 1}. */
    private final int[] modelFirstBackend;
    private final String[] backendKeys;
    private final int[] backendModel;
    private final Map<String, Integer> modelIndex;
    /** Backend index by model name, then by key: looked up without building a combined key. */
    private final Map<String, Map<String, Integer>> backendIndex;
    private final AtomicLongArray slots;

    /**
     * A table whose backends have no values yet.
     *
     * @param backends the backends, grouped by model in order of first appearance; a repeated (model, key) is one.
     * @param staleAfterNs time a good scrape's values stay fresh, positive.
     * @param nowNs the engine clock now: when every model of this table appeared.
     * @throws IllegalArgumentException when {@code staleAfterNs} is not positive.
     */
    public ServerLoadTable(final List<ServerBackend> backends, final long staleAfterNs, final long nowNs)
    {
        if (staleAfterNs <= 0)
        {
            throw new IllegalArgumentException("stale_after must be positive: " + staleAfterNs + " ns");
        }
        this.staleAfterNs = staleAfterNs;
        final Map<String, List<String>> byModel = new LinkedHashMap<>();
        for (final ServerBackend backend : backends)
        {
            final List<String> keys = byModel.computeIfAbsent(backend.model(), m -> new ArrayList<>());
            if (!keys.contains(backend.key()))
            {
                keys.add(backend.key());
            }
        }
        final int models = byModel.size();
        int total = 0;
        for (final List<String> keys : byModel.values())
        {
            total += keys.size();
        }
        modelNames = new String[models];
        modelAppearedNs = new long[models];
        modelFirstBackend = new int[models + 1];
        backendKeys = new String[total];
        backendModel = new int[total];
        modelIndex = new HashMap<>();
        backendIndex = new HashMap<>();
        int m = 0;
        int b = 0;
        for (final Map.Entry<String, List<String>> model : byModel.entrySet())
        {
            modelNames[m] = model.getKey();
            modelAppearedNs[m] = nowNs;
            modelFirstBackend[m] = b;
            modelIndex.put(model.getKey(), m);
            for (final String key : model.getValue())
            {
                backendKeys[b] = key;
                backendModel[b] = m;
                backendIndex.computeIfAbsent(model.getKey(), k -> new HashMap<>()).put(key, b);
                b++;
            }
            m++;
        }
        modelFirstBackend[models] = b;
        slots = new AtomicLongArray(total * STRIDE);
        for (int i = 0; i < total; i++)
        {
            final int base = i * STRIDE;
            slots.setPlain(base + WAITING, Double.doubleToRawLongBits(Double.NaN));
            slots.setPlain(base + RUNNING, Double.doubleToRawLongBits(Double.NaN));
            slots.setPlain(base + KV, Double.doubleToRawLongBits(Double.NaN));
            slots.setPlain(base + RESPONSE_NS, NEVER);
        }
        VarHandle.releaseFence(); // the initial values are visible to whoever receives the table
    }

    /**
     * The table for a new backend set, keeping what the previous one knew about the backends that stay (the same model
     * with the same key) and when the models that stay appeared. Call it on the writer's thread (it reads the previous
     * table's slots while no write can be under way); publish the result to readers through a volatile field.
     *
     * @param previous the table being replaced.
     * @param backends the new backends.
     * @param staleAfterNs the new freshness bound, positive.
     * @param nowNs the engine clock now: when the new models appeared.
     * @return the new table.
     */
    public static ServerLoadTable successor(
        final ServerLoadTable previous, final List<ServerBackend> backends, final long staleAfterNs, final long nowNs)
    {
        final ServerLoadTable next = new ServerLoadTable(backends, staleAfterNs, nowNs);
        final long[] copy = new long[STRIDE];
        for (int m = 0; m < next.modelNames.length; m++)
        {
            final int old = previous.modelIndex(next.modelNames[m]);
            if (old != NOT_FOUND)
            {
                next.modelAppearedNs[m] = previous.modelAppearedNs[old];
            }
        }
        for (int b = 0; b < next.backendKeys.length; b++)
        {
            final int old = previous.backendIndex(next.modelNames[next.backendModel[b]], next.backendKeys[b]);
            if (old != NOT_FOUND && previous.readSlot(old, copy))
            {
                final int to = b * STRIDE;
                for (int field = WAITING; field < STRIDE; field++)
                {
                    next.slots.setPlain(to + field, copy[field]);
                }
            }
        }
        VarHandle.releaseFence(); // the copied values are visible to whoever receives the table
        return next;
    }

    /** @return time a good scrape's values stay fresh, in nanoseconds. */
    public long staleAfterNs()
    {
        return staleAfterNs;
    }

    /** @return how many models have backends here. */
    public int modelCount()
    {
        return modelNames.length;
    }

    /**
     * @param model a model index, 0..{@link #modelCount()} - 1.
     * @return its name.
     */
    public String modelName(final int model)
    {
        return modelNames[model];
    }

    /**
     * Not for the hot path: a map lookup.
     *
     * @param name a model's name.
     * @return its index, or {@link #NOT_FOUND}.
     */
    public int modelIndex(final String name)
    {
        final Integer index = modelIndex.get(name);
        return index == null ? NOT_FOUND : index;
    }

    /**
     * @param model a model index.
     * @return when the model appeared (the first table that held it was made), engine clock nanoseconds.
     */
    public long appearedNs(final int model)
    {
        return modelAppearedNs[model];
    }

    /** @return how many backends the table holds. */
    public int backendCount()
    {
        return backendKeys.length;
    }

    /**
     * Two map lookups; allocates nothing.
     *
     * @param model a model's name.
     * @param key a backend's {@link ServerBackend#key()}.
     * @return the backend's index, or {@link #NOT_FOUND}.
     */
    public int backendIndex(final String model, final String key)
    {
        final Map<String, Integer> keys = backendIndex.get(model);
        final Integer index = keys == null ? null : keys.get(key);
        return index == null ? NOT_FOUND : index;
    }

    /**
     * @param model a model index.
     * @return the index of its first backend; its backends are this .. {@link #backendEnd(int)} - 1.
     */
    public int backendStart(final int model)
    {
        return modelFirstBackend[model];
    }

    /**
     * @param model a model index.
     * @return one past the index of its last backend.
     */
    public int backendEnd(final int model)
    {
        return modelFirstBackend[model + 1];
    }

    /**
     * @param backend a backend index, 0..{@link #backendCount()} - 1.
     * @return its key.
     */
    public String backendKey(final int backend)
    {
        return backendKeys[backend];
    }

    /**
     * @param backend a backend index.
     * @return the index of its model.
     */
    public int backendModel(final int backend)
    {
        return backendModel[backend];
    }

    /**
     * Stores what a good scrape (or load report) said, unless the slot already holds a later response (a scrape that
     * finished after a load report arrived does not overwrite it). Any thread; allocation-free; the slot is claimed
     * with a compare-and-swap of its sequence number (a writer that finds it claimed spins a bounded number of times,
     * then gives up) and published with a release store of it.
     *
     * @param backend a backend index.
     * @param waiting waiting requests, finite and >= 0, or NaN when not reported (a scrape always reports it).
     * @param running running requests, finite and >= 0, or NaN when the server did not say.
     * @param kvUse KV-cache use, a fraction in [0, 1], or NaN when not reported (not both NaN).
     * @param responseNs when the response arrived, engine clock nanoseconds.
     * @return whether the values are valid (then they are stored, or a later response already was); {@code false}
     *     (nothing changed) when one is out of range, or another writer held the slot throughout.
     */
    public boolean recordLoad(
        final int backend, final double waiting, final double running, final double kvUse, final long responseNs)
    {
        final boolean waitingMissing = Double.isNaN(waiting);
        final boolean kvMissing = Double.isNaN(kvUse);
        if (!(waitingMissing || waiting >= 0.0 && waiting < Double.POSITIVE_INFINITY) ||
            !(kvMissing || kvUse >= 0.0 && kvUse <= 1.0) || waitingMissing && kvMissing ||
            !(Double.isNaN(running) || running >= 0.0 && running < Double.POSITIVE_INFINITY) || responseNs == NEVER)
        {
            return false;
        }
        final int base = backend * STRIDE;
        long seq = 0;
        boolean claimed = false;
        for (int attempt = 0; attempt < MAX_WRITE_ATTEMPTS && !claimed; attempt++)
        {
            seq = slots.getAcquire(base + SEQ);
            if ((seq & 1L) == 0)
            {
                claimed = slots.compareAndSet(base + SEQ, seq, seq + 1);
            }
            else
            {
                Thread.onSpinWait();
            }
        }
        if (!claimed)
        {
            return false;
        }
        // The CAS is a full fence: the odd sequence is visible before any value of the slot changes.
        final long storedNs = slots.getPlain(base + RESPONSE_NS);
        if (storedNs != NEVER && responseNs - storedNs < 0)
        {
            slots.setRelease(base + SEQ, seq + 2); // a later response is already stored: keep it
            return true;
        }
        slots.setOpaque(base + WAITING, Double.doubleToRawLongBits(waiting));
        slots.setOpaque(base + RUNNING, Double.doubleToRawLongBits(running));
        slots.setOpaque(base + KV, Double.doubleToRawLongBits(kvUse));
        slots.setOpaque(base + RESPONSE_NS, responseNs);
        slots.setRelease(base + SEQ, seq + 2); // the values are visible before the even sequence
        return true;
    }

    /**
     * Counts one scrape of a backend by result. Any thread; one atomic add.
     *
     * @param backend a backend index.
     * @param result {@link #SCRAPE_OK}, {@link #SCRAPE_FAILED} or {@link #SCRAPE_REFUSED}.
     */
    public void countScrape(final int backend, final int result)
    {
        slots.getAndIncrement(backend * STRIDE + COUNTS + result);
    }

    /**
     * @param backend a backend index.
     * @param result {@link #SCRAPE_OK}, {@link #SCRAPE_FAILED} or {@link #SCRAPE_REFUSED}.
     * @return the scrapes of that result counted so far (kept across {@link #successor}).
     */
    public long scrapes(final int backend, final int result)
    {
        return slots.get(backend * STRIDE + COUNTS + result);
    }

    /**
     * @param backend a backend index.
     * @return when the response of its last good scrape arrived, or {@link #NEVER}.
     */
    public long lastResponseNs(final int backend)
    {
        return read(backend, RESPONSE_NS, NEVER);
    }

    /**
     * @param backend a backend index.
     * @return waiting requests of its last good scrape (fresh or not), NaN when none.
     */
    public double waiting(final int backend)
    {
        return Double.longBitsToDouble(read(backend, WAITING, Double.doubleToRawLongBits(Double.NaN)));
    }

    /**
     * @param backend a backend index.
     * @return running requests of its last good scrape (fresh or not), NaN when none or not published.
     */
    public double running(final int backend)
    {
        return Double.longBitsToDouble(read(backend, RUNNING, Double.doubleToRawLongBits(Double.NaN)));
    }

    /**
     * @param backend a backend index.
     * @return KV-cache use of its last good scrape (fresh or not), NaN when none.
     */
    public double kvUse(final int backend)
    {
        return Double.longBitsToDouble(read(backend, KV, Double.doubleToRawLongBits(Double.NaN)));
    }

    /**
     * @param backend a backend index.
     * @param nowNs the engine clock now.
     * @return whether less than {@link #staleAfterNs()} has passed since its last good response.
     */
    public boolean isFresh(final int backend, final long nowNs)
    {
        final long responseNs = lastResponseNs(backend);
        return responseNs != NEVER && nowNs - responseNs < staleAfterNs;
    }

    /**
     * @param model a model index.
     * @param nowNs the engine clock now.
     * @return whether at least one of its backends is fresh.
     */
    public boolean anyFresh(final int model, final long nowNs)
    {
        for (int b = modelFirstBackend[model], end = modelFirstBackend[model + 1]; b < end; b++)
        {
            if (isFresh(b, nowNs))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a model counts as stale: none of its backends is fresh, and at least {@link #staleAfterNs()} has passed
     * since the model appeared (before that, no scrape has had time to answer).
     *
     * @param model a model index.
     * @param nowNs the engine clock now.
     * @return whether the model is stale.
     */
    public boolean stale(final int model, final long nowNs)
    {
        return nowNs - modelAppearedNs[model] >= staleAfterNs && !anyFresh(model, nowNs);
    }

    /**
     * W(m). Allocation-free, lock-free.
     *
     * @param model a model index.
     * @param nowNs the engine clock now.
     * @return the smallest waiting count among its fresh backends, NaN when none is fresh.
     */
    public double queue(final int model, final long nowNs)
    {
        return smallestFresh(model, WAITING, nowNs);
    }

    /**
     * K(m). Allocation-free, lock-free.
     *
     * @param model a model index.
     * @param nowNs the engine clock now.
     * @return the smallest KV-cache use among its fresh backends, NaN when none is fresh.
     */
    public double kvCache(final int model, final long nowNs)
    {
        return smallestFresh(model, KV, nowNs);
    }

    private double smallestFresh(final int model, final int field, final long nowNs)
    {
        double smallest = Double.NaN;
        for (int b = modelFirstBackend[model], end = modelFirstBackend[model + 1]; b < end; b++)
        {
            final int base = b * STRIDE;
            for (int attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++)
            {
                final long seq = slots.getAcquire(base + SEQ);
                if ((seq & 1L) != 0)
                {
                    Thread.onSpinWait();
                    continue;
                }
                final long responseNs = slots.getOpaque(base + RESPONSE_NS);
                final double value = Double.longBitsToDouble(slots.getOpaque(base + field));
                VarHandle.loadLoadFence(); // the values are read before the sequence is checked again
                if (slots.getOpaque(base + SEQ) != seq)
                {
                    continue;
                }
                // A value not reported (NaN) is skipped; NaN smallest so far: the first value present is taken.
                if (responseNs != NEVER && nowNs - responseNs < staleAfterNs && value == value && !(value >= smallest))
                {
                    smallest = value;
                }
                break;
            }
        }
        return smallest;
    }

    // A consistent copy of a slot's values (not its counts, which are read as they are): false when unreadable.
    private boolean readSlot(final int backend, final long[] into)
    {
        final int base = backend * STRIDE;
        for (int attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++)
        {
            final long seq = slots.getAcquire(base + SEQ);
            if ((seq & 1L) != 0)
            {
                Thread.onSpinWait();
                continue;
            }
            for (int field = WAITING; field <= RESPONSE_NS; field++)
            {
                into[field] = slots.getOpaque(base + field);
            }
            VarHandle.loadLoadFence(); // the values are read before the sequence is checked again
            if (slots.getOpaque(base + SEQ) == seq)
            {
                for (int field = COUNTS; field < STRIDE; field++)
                {
                    into[field] = slots.get(base + field);
                }
                return true;
            }
        }
        return false;
    }

    private long read(final int backend, final int field, final long unreadable)
    {
        final int base = backend * STRIDE;
        for (int attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++)
        {
            final long seq = slots.getAcquire(base + SEQ);
            if ((seq & 1L) != 0)
            {
                Thread.onSpinWait();
                continue;
            }
            final long value = slots.getOpaque(base + field);
            VarHandle.loadLoadFence(); // the value is read before the sequence is checked again
            if (slots.getOpaque(base + SEQ) == seq)
            {
                return value;
            }
        }
        return unreadable;
    }

    @Override
    public String toString()
    {
        return "ServerLoadTable{models=" + modelNames.length + ", backends=" + backendKeys.length + ", staleAfterNs=" +
            staleAfterNs + '}';
    }
}
