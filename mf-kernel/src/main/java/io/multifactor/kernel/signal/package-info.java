/**
 * Model-server signals: the backends whose {@code /metrics} are scraped ({@link io.multifactor.kernel.signal.ServerBackend},
 * {@link io.multifactor.kernel.signal.ServerMetricsSettings}) and the {@link io.multifactor.kernel.signal.ServerLoadTable}
 * that holds what the last good scrape of each backend said, with its freshness.
 * <p>
 * Threading: the table has one writer (the scrape agent) and any number of readers, which never block or allocate; the
 * settings and backend descriptions are immutable.
 */
package io.multifactor.kernel.signal;
