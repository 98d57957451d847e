package io.multifactor.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Describes the machine a run took place on: processors, CPU model and JDK, as Markdown list lines.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class MachineInfo
{
    private MachineInfo()
    {
    }

    /** @return lines {@code - nproc: ...}, {@code - CPU: ...}, {@code - JDK: ...}, each ending with a newline. */
    public static String describe()
    {
        return "- nproc: " + Runtime.getRuntime().availableProcessors() + "\n" +
            "- CPU: " + cpuModel() + "\n" +
            "- JDK: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + "\n" +
            "- OS: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " " +
            System.getProperty("os.arch") + "\n";
    }

    private static String cpuModel()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/cpuinfo")))
            {
                if (line.startsWith("model name"))
                {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        }
        catch (final IOException | RuntimeException ignored)
        {
            // Not Linux, or not readable: the model is then reported as unknown.
        }
        return "unknown";
    }
}
