/**
 * The configuration entry points: {@link io.multifactor.config.ConfigLoader} turns a YAML file (this library's own
 * format, or vLLM Semantic Router's {@code version: v0.3} file, alone or under Helm values' {@code config:}) into a
 * validated model and compiled {@link io.multifactor.kernel.plan.Plans}, refusing bad input with every located problem
 * at once.
 * <p>
 * Threading: loading is stateless and may run on any thread; its results are immutable.
 */
package io.multifactor.config;
