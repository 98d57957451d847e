package io.multifactor.kernel.metrics;

/**
 * Type ids of the engine's Agrona counters, one per kind, and the metric name each kind's labels start with.
 * <p>
 * Every counter of the engine has one of these type ids and a label in the grammar of {@link CounterLabel}; the tags
 * each kind carries are listed below. Values are counts unless said otherwise.
 * <pre>
 *   type id  label name            tags                          value
 *   1601     mf.inflight           model                         requests in flight now (a gauge)
 *   1602     mf.engine.*           (none)                        engine-wide events: samples_refused, samples_clamped,
 *                                                                lease_table_full, leases_reclaimed
 *   1603     mf.selected           decision, model, outcome      selections of the decision won by the model with
 *                                                                that outcome (scored, fallback_cheapest, fallback_first)
 *   1604     mf.selections         decision, outcome             selections of the decision that selected nothing
 *                                                                (outcome failed, ineligible, shed); the other
 *                                                                outcomes are sums of mf.selected
 *   1605     mf.drops              model, reason                 candidates dropped (excluded, tpot, ttft, cost, ...)
 *   1606     mf.samples.refused    model, metric                 latency samples refused (zero, negative, NaN)
 *   1607     mf.samples.clamped    model, metric                 latency samples clamped to the trackable maximum
 *   1608     mf.leases.healed      model                         leases reclaimed by the sweeper (a lost end)
 *   1609     mf.latency            model, metric, percentile     published percentile in microseconds, -1 = none (a gauge)
 *   1610     mf.reloads            result                        reloads applied / refused
 *   1611     mf.fleet.exchanges    result                        fleet exchanges done / failed
 *   1612     mf.fleet.replicas     (none)                        live remote replicas (a gauge)
 *   1613     mf.server.queue       model                         W(m): waiting requests, -1 = missing (a gauge)
 *   1614     mf.server.kv_cache    model                         K(m) in millionths of the cache, -1 = missing (a gauge)
 *   1615     mf.server.scrapes     backend, result               scrapes of a backend by result (ok, failed, refused)
 *   1616     mf.server.fresh       backend                       1 while the backend is fresh, else 0 (a gauge)
 *   1617     mf.ejections          model, cause                  ejections of the model, cause 5xx (consecutive
 *                                                                failures, a failed probe) or retry_after
 *   1618     mf.ejected            model                         ms of ejection left, -1 while its probe is out,
 *                                                                0 when not ejected (a gauge, one refresh old)
 *   1640     mf.prefix.choices     backend, result               backend choices under prefix-cache affinity by
 *                                                                result (warm, cold, release), counted by the
 *                                                                serving layer into the engine's counters
 *   1641     mf.prefix.blocks      backend, kind                 prompt blocks looked up and matched in the chosen
 *                                                                backend's index (kind looked_up, matched)
 * </pre>
 * The {@code mf.prefix.*} counters live as long as the engine (a backend keeps them across reloads) and are never
 * retired.
 * A counter whose key's first int is {@link #KEY_RETIRED} belongs to a model or decision the current plans no longer
 * have; it is freed (and its id reused) once nothing can still count into it.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class CounterTypes
{
    /** In-flight requests of one model. */
    public static final int INFLIGHT = 1_601;

    /** Engine-wide event counters. */
    public static final int EVENT = 1_602;

    /** Selections of a decision won by a model, by outcome. */
    public static final int SELECTED = 1_603;

    /** Selections of a decision by outcome (the file holds only {@code failed}, {@code ineligible} and {@code shed}). */
    public static final int SELECTIONS = 1_604;

    /** Candidates dropped, by model and reason. */
    public static final int DROPS = 1_605;

    /** Latency samples refused, by model and metric. */
    public static final int SAMPLES_REFUSED = 1_606;

    /** Latency samples clamped, by model and metric. */
    public static final int SAMPLES_CLAMPED = 1_607;

    /** Leases of a model reclaimed by the sweeper. */
    public static final int LEASES_HEALED = 1_608;

    /** A published percentile in microseconds ({@link #NO_OBSERVATION} when the window is empty). */
    public static final int LATENCY = 1_609;

    /** Reloads by result. */
    public static final int RELOADS = 1_610;

    /** Fleet exchanges by result. */
    public static final int FLEET_EXCHANGES = 1_611;

    /** Live remote replicas. */
    public static final int FLEET_REPLICAS = 1_612;

    /** A model's server queue W(m), rounded; -1 when missing. */
    public static final int SERVER_QUEUE = 1_613;

    /** A model's server KV-cache use K(m) in millionths; -1 when missing. */
    public static final int SERVER_KV_CACHE = 1_614;

    /** Scrapes of a backend, by result. */
    public static final int SERVER_SCRAPES = 1_615;

    /** Whether a backend is fresh (1) or not (0). */
    public static final int SERVER_FRESH = 1_616;

    /** Ejections of a model, by cause. */
    public static final int EJECTIONS = 1_617;

    /** A model's ejection: milliseconds left, {@link #EJECTED_PROBING} while its probe is out, 0 when not ejected. */
    public static final int EJECTED = 1_618;

    /** Value of an {@link #EJECTED} counter while the model's half-open probe is out. */
    public static final long EJECTED_PROBING = -1L;

    /** Tokens in flight on one model: the weights of its live leases ({@code mf.inflight.tokens}). */
    public static final int INFLIGHT_TOKENS = 1_619;

    /** Selections of a decision by session rule ({@code mf.sessions}: stay, switch, handoff, new) and evictions. */
    public static final int SESSIONS = 1_630;

    /** Live session entries of a decision ({@code mf.sessions.live}), set by the refresh agent. */
    public static final int SESSIONS_LIVE = 1_631;

    /** Backend choices under prefix-cache affinity by backend and result ({@code mf.prefix.choices}). */
    public static final int PREFIX_CHOICES = 1_640;

    /** Prompt blocks looked up and matched by backend and kind ({@code mf.prefix.blocks}: looked_up, matched). */
    public static final int PREFIX_BLOCKS = 1_641;

    /** Value of a {@link #LATENCY} counter whose window holds no sample. */
    public static final long NO_OBSERVATION = -1L;

    /** Offset in a counter's key of the int that says whether it is live or retired. */
    public static final int KEY_STATE_OFFSET = 0;

    /** Key state of a counter of the current plans (a fresh key is all zeros). */
    public static final int KEY_LIVE = 0;

    /** Key state of a counter of a model or decision the current plans no longer have. */
    public static final int KEY_RETIRED = 1;

    private CounterTypes()
    {
    }

    /**
     * @param typeId a type id.
     * @return whether it is one of the engine's kinds.
     */
    public static boolean isEngineType(final int typeId)
    {
        return typeId >= INFLIGHT && typeId <= EJECTED || typeId == INFLIGHT_TOKENS || typeId == SESSIONS ||
            typeId == SESSIONS_LIVE || typeId == PREFIX_CHOICES || typeId == PREFIX_BLOCKS;
    }
}
