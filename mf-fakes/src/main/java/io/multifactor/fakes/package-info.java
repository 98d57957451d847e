/**
 * Fake OpenAI-compatible model servers for trying the gateway and testing routers without GPUs: real HTTP servers on
 * loopback with configured latency distributions, a batch size beyond which requests queue, degradation windows,
 * errors, 429s with {@code Retry-After}, and vLLM's {@code /metrics}; read from a backends profile.
 * <p>
 * Threading: each server keeps its state on its own Vert.x event loop; starting and stopping are threadsafe.
 */
package io.multifactor.fakes;
