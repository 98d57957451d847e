package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.model.ConfigFormat;
import io.multifactor.config.model.ConfigOutline;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.RouterConfig;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.YamlEntry;
import io.multifactor.config.yaml.YamlMapping;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlTreeReader;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Loads a configuration file: YAML to a located tree, validation that reports every problem at once as
 * {@code FILE:LINE:COLUMN: PATH: message}, then compilation into {@link Plans}. The file is either in this library's
 * own format or vLLM Semantic Router's canonical one (a root with {@code version: v0.3}, or a Helm values file with
 * such a configuration under {@code config:}); both give the same validated model and plans.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ConfigLoader
{
    private ConfigLoader()
    {
    }

    /**
     * @param path the YAML file.
     * @return the validated, compiled configuration with fresh handles.
     * @throws InvalidConfigurationException with every problem of the file when it is refused.
     */
    public static LoadedConfig load(final Path path) throws InvalidConfigurationException
    {
        return load(path, null);
    }

    /**
     * @param path the YAML file.
     * @param previous the snapshot this one will replace (names that stay keep their handles), or {@code null}.
     * @return the validated, compiled configuration.
     * @throws InvalidConfigurationException with every problem of the file when it is refused.
     */
    public static LoadedConfig load(final Path path, final Plans previous) throws InvalidConfigurationException
    {
        return load(path, previous, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
    }

    /**
     * @param path the YAML file.
     * @param previous the snapshot this one will replace (names that stay keep their handles), or {@code null}.
     * @param counterCapacity the counter capacity of the engine that will run the plans
     *     ({@link MultiFactorEngine#counterCapacity()}); more models than it can hold is a problem of the file.
     * @return the validated, compiled configuration.
     * @throws InvalidConfigurationException with every problem of the file when it is refused.
     */
    public static LoadedConfig load(final Path path, final Plans previous, final int counterCapacity)
        throws InvalidConfigurationException
    {
        return compile(path.toString(), YamlTreeReader.read(path), previous, counterCapacity);
    }

    /**
     * @param file name of the file, for messages.
     * @param yaml the YAML text.
     * @param previous the snapshot this one will replace, or {@code null}.
     * @return the validated, compiled configuration.
     * @throws InvalidConfigurationException with every problem of the text when it is refused.
     */
    public static LoadedConfig load(final String file, final String yaml, final Plans previous)
        throws InvalidConfigurationException
    {
        return compile(file, YamlTreeReader.read(file, yaml.getBytes(StandardCharsets.UTF_8)), previous,
            MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
    }

    /**
     * @param file name of the file, for messages.
     * @param utf8 the YAML bytes.
     * @param previous the snapshot this one will replace, or {@code null}.
     * @return the validated, compiled configuration.
     * @throws InvalidConfigurationException with every problem of the content when it is refused.
     */
    public static LoadedConfig load(final String file, final byte[] utf8, final Plans previous)
        throws InvalidConfigurationException
    {
        return compile(file, YamlTreeReader.read(file, utf8), previous, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
    }

    /**
     * Loads a vLLM Semantic Router file completed by an overlay: a second file in this library's format with only
     * {@code signals:}, {@code fleet:} and {@code models:} entries ({@code name} plus {@code server},
     * {@code reliability}, {@code backend_refs}) merged onto the first file's models by name. The problems of both
     * files are reported together, each in its own file's name.
     *
     * @param path the vLLM Semantic Router file.
     * @param overlay the overlay file, or {@code null} for none.
     * @param previous the snapshot this one will replace (names that stay keep their handles), or {@code null}.
     * @param counterCapacity the counter capacity of the engine that will run the plans.
     * @return the validated, compiled configuration.
     * @throws InvalidConfigurationException with every problem of both files when they are refused.
     */
    public static LoadedConfig load(final Path path, final Path overlay, final Plans previous, final int counterCapacity)
        throws InvalidConfigurationException
    {
        if (overlay == null)
        {
            return load(path, previous, counterCapacity);
        }
        final List<ConfigProblem> unreadable = new ArrayList<>();
        final YamlNode root = readOrCollect(path, unreadable);
        final YamlNode overlayRoot = readOrCollect(overlay, unreadable);
        if (!unreadable.isEmpty())
        {
            throw new InvalidConfigurationException(unreadable);
        }
        return compile(path.toString(), root, overlay.toString(), overlayRoot, previous, counterCapacity);
    }

    /**
     * @param file name of the vLLM Semantic Router file, for messages.
     * @param utf8 its YAML bytes.
     * @param overlayFile name of the overlay, for messages.
     * @param overlayUtf8 the overlay's YAML bytes.
     * @param previous the snapshot this one will replace, or {@code null}.
     * @return the validated, compiled configuration.
     * @throws InvalidConfigurationException with every problem of both when they are refused.
     * @see #load(Path, Path, Plans, int)
     */
    public static LoadedConfig load(
        final String file, final byte[] utf8, final String overlayFile, final byte[] overlayUtf8, final Plans previous)
        throws InvalidConfigurationException
    {
        final List<ConfigProblem> unreadable = new ArrayList<>();
        YamlNode root = null;
        YamlNode overlayRoot = null;
        try
        {
            root = YamlTreeReader.read(file, utf8);
        }
        catch (final InvalidConfigurationException ex)
        {
            unreadable.addAll(ex.problems());
        }
        try
        {
            overlayRoot = YamlTreeReader.read(overlayFile, overlayUtf8);
        }
        catch (final InvalidConfigurationException ex)
        {
            unreadable.addAll(ex.problems());
        }
        if (!unreadable.isEmpty())
        {
            throw new InvalidConfigurationException(unreadable);
        }
        return compile(file, root, overlayFile, overlayRoot, previous, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
    }

    private static YamlNode readOrCollect(final Path path, final List<ConfigProblem> problems)
    {
        try
        {
            return YamlTreeReader.read(path);
        }
        catch (final InvalidConfigurationException ex)
        {
            problems.addAll(ex.problems());
            return null;
        }
    }

    private static LoadedConfig compile(
        final String file, final YamlNode root, final Plans previous, final int counterCapacity)
        throws InvalidConfigurationException
    {
        return compile(file, root, null, null, previous, counterCapacity);
    }

    private static LoadedConfig compile(
        final String file, final YamlNode root, final String overlayFile, final YamlNode overlayRoot,
        final Plans previous, final int counterCapacity)
        throws InvalidConfigurationException
    {
        final Problems problems = new Problems(file);
        final ConfigFormat format = VsrConfigReader.formatOf(root);
        RouterConfig config;
        final ConfigOutline outline;
        if (format == ConfigFormat.MULTI_FACTOR)
        {
            config = VsrConfigReader.refuseWithoutVersion(root, problems) ? null : RouterConfigReader.read(root, problems);
            outline = ConfigOutline.MULTI_FACTOR;
        }
        else
        {
            final VsrConfigReader.Result vsr = VsrConfigReader.read(root, format, problems);
            config = vsr.config();
            outline = vsr.outline();
        }
        final Problems overlayProblems = overlayRoot == null ? null : new Problems(overlayFile);
        if (overlayProblems != null)
        {
            config = OverlayReader.apply(overlayRoot, config, format, overlayProblems);
        }
        if (config != null)
        {
            checkCapacity(root, config, counterCapacity, problems);
        }
        final List<ConfigProblem> warnings = new ArrayList<>(problems.warnings());
        if (overlayProblems != null)
        {
            if (problems.hasErrors() || overlayProblems.hasErrors())
            {
                final List<ConfigProblem> errors = new ArrayList<>(problems.errors());
                errors.addAll(overlayProblems.errors());
                throw new InvalidConfigurationException(errors);
            }
            warnings.addAll(overlayProblems.warnings());
        }
        problems.throwIfErrors();
        return new LoadedConfig(file, config, PlansCompiler.compile(config, previous), warnings, outline);
    }

    /** More models than the engine's counters can hold is refused here, in the same pass, not by the engine later. */
    private static void checkCapacity(
        final YamlNode root, final RouterConfig config, final int counterCapacity, final Problems problems)
    {
        int candidates = 0;
        final Set<Integer> percentiles = new HashSet<>();
        for (final DecisionConfig decision : config.decisions())
        {
            candidates += decision.modelRefs().size();
            percentiles.add(decision.multiFactor().latencyPercentile());
        }
        final int models = config.models().size();
        long ejecting = 0;
        for (final ModelConfig model : config.models())
        {
            ejecting += model.reliability().ejects() ? MultiFactorEngine.EJECTION_COUNTERS_PER_MODEL : 0;
        }
        final int needed = (int)Math.min(Integer.MAX_VALUE, ejecting +
            MultiFactorEngine.countersNeeded(models, config.decisions().size(), candidates, percentiles.size()));
        if (needed <= counterCapacity)
        {
            return;
        }
        // Say what takes the counters: a file of few models and many decisions has too many decisions, not models.
        final long modelPart = needed - (long)MultiFactorEngine.countersNeeded(0, config.decisions().size(),
            candidates, percentiles.size());
        final long decisionPart = config.decisions().size() + 2L * candidates;
        final boolean decisionsOverflow = decisionPart > modelPart;
        YamlNode at = root;
        String path = "";
        for (final String[] keys : decisionsOverflow ? DECISION_LISTS : MODEL_LISTS)
        {
            final YamlNode found = find(root, keys);
            if (found != null)
            {
                at = found;
                path = String.join(".", keys);
                break;
            }
        }
        if (decisionsOverflow)
        {
            problems.error(at, path, "too many decisions for the engine: " + models + " models, " +
                config.decisions().size() + " decisions and " + candidates + " candidates need " + needed +
                " counters, the engine holds " + counterCapacity + " (raise MultiFactorEngine.Builder.counterCapacity, " +
                "or remove decisions)");
            return;
        }
        problems.error(at, path, "too many models for the engine: " + models + " models need " + needed +
            " counters, the engine holds " + counterCapacity + " (raise MultiFactorEngine.Builder.counterCapacity, " +
            "or remove models)");
    }

    private static final String[][] MODEL_LISTS = {
        {"models"}, {"providers", "models"}, {"config", "providers", "models"}, {"routing", "modelCards"},
        {"config", "routing", "modelCards"}
    };

    private static final String[][] DECISION_LISTS = {
        {"decisions"}, {"routing", "decisions"}, {"config", "routing", "decisions"}
    };

    private static YamlNode find(final YamlNode root, final String[] keys)
    {
        YamlNode node = root;
        for (final String key : keys)
        {
            if (!(node instanceof YamlMapping))
            {
                return null;
            }
            YamlNode next = null;
            for (final YamlEntry entry : ((YamlMapping)node).entries())
            {
                if (entry.key().equals(key))
                {
                    next = entry.value();
                    break;
                }
            }
            if (next == null)
            {
                return null;
            }
            node = next;
        }
        return node;
    }
}
