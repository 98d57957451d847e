package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.ConfigOutline;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.RouterConfig;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerMetricsSettings;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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

    /**
     * @return {@code signals.server_metrics}: how the model servers' metrics are scraped, or {@code null} when the
     *     configuration scrapes none.
     */
    public ServerMetricsSettings serverMetrics()
    {
        return config.signals().serverMetrics();
    }

    /**
     * @return every backend to scrape: those of the models whose {@code server} is set, in file order (one per
     *     distinct origin of a model); empty when {@code signals.server_metrics} is absent.
     */
    public List<ServerBackend> serverBackends()
    {
        if (config.signals().serverMetrics() == null)
        {
            return List.of();
        }
        final List<ServerBackend> backends = new ArrayList<>();
        final Set<String> seen = new HashSet<>();
        for (final ModelConfig model : config.models())
        {
            if (model.server() == null)
            {
                continue;
            }
            for (final BackendRef ref : model.backendRefs())
            {
                final ServerBackend backend = new ServerBackend(model.name(), ref.https(), ref.host(), ref.port(),
                    model.server());
                if (seen.add(model.name() + '\u0000' + backend.key()))
                {
                    backends.add(backend);
                }
            }
        }
        return List.copyOf(backends);
    }

    /** @return the engine-wide {@code signals:} settings, for {@code MultiFactorEngine.Builder#settings}. */
    public SignalSettings signalSettings()
    {
        return config.signals().settings();
    }
}
