/**
 * Model-server signals off the request path: the {@link io.multifactor.servers.ServerScrapeAgent} scrapes each
 * backend's Prometheus {@code /metrics} (vLLM, SGLang) on its own thread with the JDK's {@code HttpClient}, parses them
 * with the allocation-free {@link io.multifactor.servers.PrometheusTextParser}, and writes what they said into the
 * kernel's {@code ServerLoadTable}; {@link io.multifactor.servers.OrcaLoadReportParser} reads a response's ORCA
 * {@code endpoint-load-metrics} header with the strict, allocation-free {@link io.multifactor.servers.JsonScanner},
 * which {@code mf-serving}'s SSE meter shares (one JSON reader on the request path).
 * <p>
 * Threading: the agent's thread is the table's one writer; parsers are single-threaded, reusable objects. Whatever a
 * server sends is untrusted: skipped and counted, never thrown, never allocated without bound.
 */
package io.multifactor.servers;
