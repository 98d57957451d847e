/**
 * The {@code mf} command line behind {@code bin/mf}: picocli subcommands {@code validate} and {@code explain} (and those
 * registered in {@link io.multifactor.testkit.cli.Mf}), with the exit codes and outputs of section 5 of the design.
 * <p>
 * Threading: each invocation runs on the calling thread with its own command objects; nothing is shared.
 */
package io.multifactor.testkit.cli;
