/**
 * Validation helpers over the located YAML tree: typed reading of mappings and values, every problem collected with its
 * file, line, column and path, "did you mean" hints and duration parsing. Used for configurations and scenario files.
 * <p>
 * Threading: a validation runs on one thread with its own {@link io.multifactor.config.read.Problems}; the static helpers
 * are stateless and threadsafe.
 */
package io.multifactor.config.read;
