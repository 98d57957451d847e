/**
 * What every server that routes real requests shares, so that the gateway, the ext_proc service and the framework
 * integrations stay thin adapters: the request flow ({@link io.multifactor.serving.RequestFlow}: decision resolution,
 * select, attempts with exclusions, errors as statuses and OpenAI bodies) over the request lifecycle (select, send,
 * chunks, end exactly once), the one SSE meter, the header names ({@link io.multifactor.serving.ServingHeaders}), the
 * {@code Retry-After} parser, engine start-up and reload ({@link io.multifactor.serving.EngineHost}), OpenAI request
 * parsing and model rewrite, backend choice and the explain JSON. No HTTP or gRPC stack here; each class states whether
 * it may be shared across threads.
 */
package io.multifactor.serving;
