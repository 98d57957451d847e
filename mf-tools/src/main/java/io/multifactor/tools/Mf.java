package io.multifactor.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/**
 * The {@code mf} command line ({@code bin/mf}): {@code validate}, {@code explain} and the subcommands registered below.
 * Exit codes are those of {@link ExitCodes}.
 * <p>
 * This class is not threadsafe: one invocation per instance.
 */
@Command(
    name = "mf",
    mixinStandardHelpOptions = true,
    versionProvider = MfVersion.class,
    description = "Validate a multi-factor configuration, explain a selection, simulate traffic, read a running engine's counters, serve real requests.",
    // To register a subcommand, add its class here (one line), as for SimulateCommand: a
    // picocli @Command(name = ...) implementing Callable<Integer> that returns an ExitCodes value and writes to
    // spec.commandLine().getOut() / getErr() (so tests that run Mf.run(...) in-process capture its output).
    subcommands = {
        ValidateCommand.class,
        ExplainCommand.class,
        SimulateCommand.class,
        StatCommand.class,
        ServeCommand.class,
        EnvoyCommand.class,
        // `mf help` and `mf help explain`, the reflex of a newcomer; usage on stdout, exit 0.
        CommandLine.HelpCommand.class,
    })
public final class Mf implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    /**
     * Runs the tool and exits the JVM with its exit code.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the tool in-process.
     *
     * @param args command-line arguments.
     * @param out standard output.
     * @param err standard error.
     * @return the exit code, one of {@link ExitCodes}.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final PrintWriter outWriter = new PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true);
        final PrintWriter errWriter = new PrintWriter(new java.io.OutputStreamWriter(err, StandardCharsets.UTF_8), true);
        final CommandLine commandLine = new CommandLine(new Mf())
            .setOut(outWriter)
            .setErr(errWriter);
        // Picocli's defaults are our contract: a usage error exits 2, an exception escaping a command exits 1.
        commandLine.getCommandSpec().exitCodeOnInvalidInput(ExitCodes.INVALID_INPUT);
        commandLine.getCommandSpec().exitCodeOnExecutionException(ExitCodes.INTERNAL_ERROR);
        final int code = commandLine.execute(args);
        outWriter.flush();
        errWriter.flush();
        return code;
    }

    /** Without a subcommand: the usage, on stderr, as invalid input. */
    @Override
    public Integer call()
    {
        spec.commandLine().getErr().println("mf: missing subcommand");
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.INVALID_INPUT;
    }
}
