/**
 * A located YAML tree: Jackson's streaming YAML events turned into mappings, lists and scalars that remember the line
 * and column of every key and value, so validation can say exactly where each problem is.
 * <p>
 * Threading: nodes are immutable records, safe to share; the reader is stateless and threadsafe.
 */
package io.multifactor.config.yaml;
