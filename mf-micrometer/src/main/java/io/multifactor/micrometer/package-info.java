/**
 * Micrometer binding of the engine's counters: {@link io.multifactor.micrometer.MultiFactorMetrics} registers
 * pull-based meters ({@code FunctionCounter}, {@code Gauge}) that read the engine's Agrona counters when scraped, and
 * follows plan reloads.
 * <p>
 * Meters read counters atomically from the scraping thread; binding and following reloads are serialized per binder.
 */
package io.multifactor.micrometer;
