/**
 * The {@code mf} command line behind {@code bin/mf}: picocli subcommands {@code validate}, {@code explain} and
 * {@code simulate} (and those registered in {@link io.multifactor.tools.Mf}), their exit codes and outputs.
 * <p>
 * Threading: each invocation runs on the calling thread with its own command objects; nothing is shared.
 */
package io.multifactor.tools;
