package io.multifactor.config;

import io.multifactor.api.ConfigProblem;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.read.Values;
import io.multifactor.config.yaml.InputLimits;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Each limit on input has its own clear, located message, and is met before the work it bounds. */
class InputLimitsTest
{
    private static final String DECISIONS = "decisions:\n  - {name: d, modelRefs: [{model: a}]}\n";

    @TempDir
    Path dir;

    @Test
    void shouldRefuseAHugeFileByItsSizeBeforeReadingIt() throws IOException
    {
        final Path huge = dir.resolve("huge.yaml");
        try (RandomAccessFile file = new RandomAccessFile(huge.toFile(), "rw"))
        {
            // Sparse: 300 MB that take no disk, and would take 300 MB of heap (and more) if read.
            file.setLength(300L << 20);
        }

        final List<ConfigProblem> problems = refused(huge);

        assertThat(problems).extracting(Object::toString).containsExactly(
            huge + ": file too large: 314,572,800 bytes, the limit is 1,048,576 bytes (1 MiB)");
    }

    @Test
    void shouldAcceptAFileJustUnderTheSizeLimit() throws Exception
    {
        final String valid = "models:\n  - {name: a}\n" + DECISIONS;
        final StringBuilder sb = new StringBuilder(valid);
        while (sb.length() < InputLimits.MAX_FILE_BYTES - 1_000)
        {
            sb.append("#".repeat(999)).append('\n');
        }
        sb.append("#".repeat(InputLimits.MAX_FILE_BYTES - sb.length() - 1)).append('\n');
        final String padded = sb.toString();
        assertThat(padded.length()).isEqualTo(InputLimits.MAX_FILE_BYTES);
        assertThat(ConfigLoader.load(Files.writeString(dir.resolve("big.yaml"), padded)).config().models()).hasSize(1);
    }

    @Test
    void shouldSayNoSuchFileForAMissingFile()
    {
        final Path missing = dir.resolve("missing.yaml");
        assertThat(refused(missing)).extracting(Object::toString).containsExactly(missing + ": no such file");
        final Path deeper = dir.resolve("nowhere/router.yaml");
        assertThat(refused(deeper)).extracting(Object::toString).containsExactly(
            deeper + ": no such file (its directory " + dir.resolve("nowhere") + " does not exist either)");
    }

    @Test
    void shouldRefuseALineLongerThanTheValueLimitBeforeParsingIt()
    {
        final String yaml = "models:\n  - {name: " + "x".repeat(3_000_000 - 20) + "}\n" + DECISIONS;
        assertThat(yaml.length()).isGreaterThan(InputLimits.MAX_FILE_BYTES);
        // Under the file limit: the line limit is what refuses it.
        final String underFileLimit = "models:\n  - {name: " + "x".repeat(1_000_000) + "}\n" + DECISIONS;

        assertThat(refused(underFileLimit)).extracting(Object::toString).containsExactly(
            "r.yaml:2:65537: <root>: line too long: 1,000,012 characters, the limit for a line and for one value is " +
            "65,536");
    }

    @Test
    void shouldRefuseAValueLongerThanTheLimitWhereItStarts()
    {
        final StringBuilder folded = new StringBuilder("models:\n  - name: a\n    pricing: |\n");
        for (int i = 0; i < 100; i++)
        {
            folded.append("      ").append("p".repeat(1_000)).append('\n');
        }
        assertThat(refused(folded + DECISIONS)).extracting(Object::toString).containsExactly(
            "r.yaml:3:14: models[0].pricing: value too long: 100,100 characters, the limit is 65,536");
    }

    @Test
    void shouldRefuseNestingTooDeepWhereItGoesTooDeepWithAShortPath()
    {
        final String yaml = "models:\n  - name: a\n    pricing: " + "[".repeat(1_200) + "]".repeat(1_200) + "\n" +
            DECISIONS;

        final List<ConfigProblem> problems = refused(yaml);

        assertThat(problems).singleElement().satisfies(p ->
        {
            assertThat(p.line()).isEqualTo(3);
            // The list at depth 64: models (1), its item (2), pricing (3) and 61 more brackets.
            assertThat(p.column()).isEqualTo(14 + InputLimits.MAX_DEPTH - 3);
            assertThat(p.message()).isEqualTo("nesting too deep: more than 64 levels of lists and mappings");
            assertThat(p.path()).startsWith("models[0].pricing[0][0]").contains(" ... ").hasSizeLessThanOrEqualTo(120);
        });
    }

    @Test
    void shouldRefuseANameLongerThanTheNameLimitAndShortenItInTheMessage() throws Exception
    {
        final String longName = "m".repeat(Values.MAX_NAME_CHARS + 1);
        final String yaml = "models:\n  - {name: " + longName + "}\n" +
            "decisions:\n  - {name: d, modelRefs: [{model: " + longName + "}]}\n";

        assertThat(refused(yaml)).extracting(Object::toString).containsExactly(
            "r.yaml:2:12: models[0].name: name too long: 257 characters, the limit is 256, got \"" + "m".repeat(80) +
            "... (257 characters)\"",
            "r.yaml:4:35: decisions[0].modelRefs[0].model: name too long: 257 characters, the limit is 256, got \"" +
            "m".repeat(80) + "... (257 characters)\"");

        final String atLimit = "m".repeat(Values.MAX_NAME_CHARS);
        assertThat(ConfigLoader.load("r.yaml", "models:\n  - {name: " + atLimit + "}\n" +
            "decisions:\n  - {name: d, modelRefs: [{model: " + atLimit + "}]}\n", null).plans().modelId(atLimit))
            .isNotNegative();
    }

    @Test
    void shouldRefuseFortyThousandCharacterNamesQuickly()
    {
        final StringBuilder yaml = new StringBuilder("models:\n");
        for (int i = 0; i < 3; i++)
        {
            yaml.append("  - {name: ").append("m".repeat(40_000)).append(i).append("}\n");
        }
        yaml.append("decisions:\n  - {name: d, modelRefs: [{model: ").append("m".repeat(40_000)).append("x}]}\n");

        final List<ConfigProblem> problems = refused(yaml.toString());

        assertThat(problems).hasSize(4).allSatisfy(p ->
        {
            assertThat(p.message()).startsWith("name too long: 4000");
            assertThat(p.toString().length()).isLessThan(250);
        });
    }

    @Test
    void shouldShortenAHugeValueInEveryMessage()
    {
        final String yaml = "models:\n  - {name: a, quality_score: \"" + "q".repeat(60_000) + "\"}\n" + DECISIONS;

        assertThat(refused(yaml)).extracting(Object::toString).containsExactly(
            "r.yaml:2:30: models[0].quality_score: expected a number, got string \"" + "q".repeat(80) +
            "... (60000 characters)\"");
    }

    @Test
    void shouldRefuseMoreModelsThanTheEngineCanHoldAsAValidationProblem()
    {
        final int capacity = MultiFactorEngine.DEFAULT_COUNTER_CAPACITY;
        int models = 0;
        while (MultiFactorEngine.countersNeeded(models, 1, 1, 1) <= capacity)
        {
            models++;
        }
        final StringBuilder yaml = new StringBuilder("models:\n");
        for (int i = 0; i < models; i++)
        {
            yaml.append("  - {name: m").append(i).append("}\n");
        }
        yaml.append("decisions:\n  - {name: d, modelRefs: [{model: m0}, {model: nope}]}\n");
        // One known candidate: the unknown one is a problem of its own and needs no counter.
        final int needed = MultiFactorEngine.countersNeeded(models, 1, 1, 1);

        // Reported with the file's other problems, in one pass.
        assertThat(refused(yaml.toString())).extracting(Object::toString).containsExactly(
            "r.yaml:2:3: models: too many models for the engine: " + models + " models need " + needed +
            " counters, the engine holds " + capacity + " (raise MultiFactorEngine.Builder.counterCapacity, or " +
            "remove models)",
            "r.yaml:" + (models + 3) + ":48: decisions[0].modelRefs[1].model: unknown model \"nope\" " +
            "(the configuration's " + models + " models: m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, ... and " +
            (models - 10) + " more)");
    }

    @Test
    void shouldSayThatDecisionsNeedTheCountersWhenTheyAreWhatOverflows()
    {
        final int capacity = MultiFactorEngine.DEFAULT_COUNTER_CAPACITY;
        int decisions = 0;
        while (MultiFactorEngine.countersNeeded(1, decisions, decisions, 1) <= capacity)
        {
            decisions++;
        }
        final StringBuilder yaml = new StringBuilder("models:\n  - {name: m0}\ndecisions:\n");
        for (int i = 0; i < decisions; i++)
        {
            yaml.append("  - {name: d").append(i).append(", modelRefs: [{model: m0}]}\n");
        }
        final int needed = MultiFactorEngine.countersNeeded(1, decisions, decisions, 1);

        final List<ConfigProblem> problems = refused(yaml.toString());
        System.out.println(decisions + " decisions of one model: " + problems.get(0));
        assertThat(problems).extracting(Object::toString).containsExactly(
            "r.yaml:4:3: decisions: too many decisions for the engine: 1 models, " + decisions + " decisions and " +
            decisions + " candidates need " + needed + " counters, the engine holds " + capacity + " (raise " +
            "MultiFactorEngine.Builder.counterCapacity, or remove decisions)");
    }

    @Test
    void shouldCheckTheCapacityOfTheEngineTheFileIsLoadedFor() throws Exception
    {
        final StringBuilder yaml = new StringBuilder("models:\n");
        for (int i = 0; i < 100; i++)
        {
            yaml.append("  - {name: m").append(i).append("}\n");
        }
        yaml.append("decisions:\n  - {name: d, modelRefs: [{model: m0}]}\n");
        final Path file = Files.writeString(dir.resolve("many.yaml"), yaml);
        final int needed = MultiFactorEngine.countersNeeded(100, 1, 1, 1);

        assertThat(catchThrowableOfType(InvalidConfigurationException.class,
            () -> ConfigLoader.load(file, null, needed - 1)).problems()).extracting(ConfigProblem::message)
            .containsExactly("too many models for the engine: 100 models need " + needed + " counters, the engine " +
                "holds " + (needed - 1) + " (raise MultiFactorEngine.Builder.counterCapacity, or remove models)");
        final LoadedConfig loaded = ConfigLoader.load(file, null, needed);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).counterCapacity(needed).build())
        {
            assertThat(engine.plans().modelCount()).isEqualTo(100);
        }
    }

    private static List<ConfigProblem> refused(final Path path)
    {
        final InvalidConfigurationException thrown =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ConfigLoader.load(path));
        assertThat(thrown).as("refused").isNotNull();
        return thrown.problems();
    }

    private static List<ConfigProblem> refused(final String yaml)
    {
        final InvalidConfigurationException thrown =
            catchThrowableOfType(InvalidConfigurationException.class, () -> ConfigLoader.load("r.yaml", yaml, null));
        assertThat(thrown).as("refused").isNotNull();
        return thrown.problems();
    }
}
