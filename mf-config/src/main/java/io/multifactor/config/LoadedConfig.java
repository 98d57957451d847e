package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.config.model.ConfigOutline;
import io.multifactor.config.model.RouterConfig;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.Plans;

import java.util.List;

/**
 * A configuration file that passed validation: its immutable model, its compiled plans and the warnings it raised.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param file name of the file as given.
 * @param config the validated model.
 * @param plans the compiled snapshot.
 * @param warnings located warnings (such as a negative weight clamped to 0), in file order.
 * @param outline the file's format, and for a vLLM Semantic Router file what it skipped and ignored.
 */
public record LoadedConfig(
    String file, RouterConfig config, Plans plans, List<ConfigProblem> warnings, ConfigOutline outline)
{
    /**
     * @param file name of the file as given.
     * @param config the validated model.
     * @param plans the compiled snapshot.
     * @param warnings located warnings; copied.
     * @param outline the file's format, skipped decisions and ignored sections.
     */
    public LoadedConfig
    {
        warnings = List.copyOf(warnings);
    }

    /**
     * A configuration read from a file in this library's own format.
     *
     * @param file name of the file as given.
     * @param config the validated model.
     * @param plans the compiled snapshot.
     * @param warnings located warnings; copied.
     */
    public LoadedConfig(final String file, final RouterConfig config, final Plans plans, final List<ConfigProblem> warnings)
    {
        this(file, config, plans, warnings, ConfigOutline.MULTI_FACTOR);
    }

    /**
     * @return {@code signals.counters_file} as a path, for {@code MultiFactorEngine.Builder#countersFile}, or
     *     {@code null} when the file names none (counters in direct memory).
     */
    public java.nio.file.Path countersFile()
    {
        final String name = config.signals().countersFile();
        return name == null ? null : java.nio.file.Path.of(name);
    }

    /** @return the engine-wide {@code signals:} settings, for {@code MultiFactorEngine.Builder#settings}. */
    public SignalSettings signalSettings()
    {
        return new SignalSettings(
            config.signals().latencyWindowNs(), config.signals().latencyRefreshNs(), config.signals().inflightMaxAgeNs());
    }
}
