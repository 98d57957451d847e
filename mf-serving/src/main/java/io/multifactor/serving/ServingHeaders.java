package io.multifactor.serving;

/**
 * The one home of the HTTP header names that routing servers read and write (lower case, as HTTP/2 and Envoy carry
 * them): the gateway, the ext_proc service, the load generator and the framework integrations name a header only
 * through these constants.
 * <p>
 * This class holds constants only and is threadsafe.
 */
public final class ServingHeaders
{
    /** Request header that names the decision; response header that says which decision chose. */
    public static final String DECISION = "x-mf-decision";
    /** Response header with the chosen model's name (in Envoy's {@code vsr} mode also a request header routes match). */
    public static final String SELECTED_MODEL = "x-selected-model";
    /** Request header {@code x-mf-explain: 1} asks for the explain JSON of the selection in the same response header. */
    public static final String EXPLAIN = "x-mf-explain";
    /** The value of {@link #EXPLAIN} that asks for the explain JSON. */
    public static final String EXPLAIN_ON = "1";
    /** Header and {@code envoy.lb} metadata key with the chosen backend's {@code host:port} (Envoy's endpoint mode). */
    public static final String DESTINATION_ENDPOINT = "x-gateway-destination-endpoint";
    /** Request header that asks a model server for its ORCA load report on the response. */
    public static final String LOAD_REPORT_FORMAT = "endpoint-load-metrics-format";
    /** The value of {@link #LOAD_REPORT_FORMAT} the servers are asked for. */
    public static final String LOAD_REPORT_FORMAT_TEXT = "TEXT";
    /** Response header that carries a model server's ORCA load report. */
    public static final String LOAD_REPORT = "endpoint-load-metrics";
    /** Response header of a 429 or 503 that says how long to wait (parsed by {@link RetryAfter}). */
    public static final String RETRY_AFTER = "retry-after";
    /** Request header that names a request in logs (passed through, or generated), echoed on the response. */
    public static final String REQUEST_ID = "x-request-id";
    /** Request header that names the request's session (keyed by {@link SessionKeys}). */
    public static final String SESSION_ID = "x-session-id";
    /** llm-d's session header, read when {@link #SESSION_ID} is absent. */
    public static final String SESSION_TOKEN = "x-session-token";

    /** Response header: how many attempts the request made (1 when the first one answered). */
    public static final String ATTEMPTS = "x-mf-attempts";

    /** Request header: the request's own TTFT ceiling in milliseconds (a positive number), tightening the decision's. */
    public static final String SLO_TTFT_MS = "x-slo-ttft-ms";
    /** Request header: the request's own TPOT ceiling in milliseconds (a positive number), tightening the decision's. */
    public static final String SLO_TPOT_MS = "x-slo-tpot-ms";
    /** Request header: the request's priority, {@code critical}, {@code standard} (default) or {@code sheddable}. */
    public static final String PRIORITY = "x-mf-priority";

    private ServingHeaders()
    {
    }
}
