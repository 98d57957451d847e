/**
 * Hot reload: a new configuration file is validated and compiled against the running plans, then swapped into the
 * engine atomically; a refused file keeps the running plans. An optional watcher reloads on every change.
 * <p>
 * Threading: reloads serialize on their reloader and may be called from any thread while selections run; the watcher
 * runs reloads on its own daemon thread.
 */
package io.multifactor.config.reload;
