/**
 * What every server that routes real requests shares: OpenAI request parsing and model rewrite, the decision a request
 * names, the request lifecycle (select, send, chunks, end exactly once), backend choice and the explain JSON.
 * No HTTP or gRPC stack here; each class states whether it may be shared across threads.
 */
package io.multifactor.serving;
