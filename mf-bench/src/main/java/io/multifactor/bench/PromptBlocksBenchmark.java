package io.multifactor.bench;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.serving.Backend;
import io.multifactor.serving.BackendChooser;
import io.multifactor.serving.BackendPrefix;
import io.multifactor.serving.PrefixBackends;
import io.multifactor.serving.PrefixTicket;
import io.multifactor.serving.PromptBlocks;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Prefix-cache affinity's per-request work for a {@code promptKib} KiB prompt over 8 backends of one model, 2 of them
 * holding the prompt's blocks (the others 4,096 blocks of other prompts): the prompt's bytes written as the request
 * reader writes them (its text, as UTF-8), cut into 256-byte blocks hashed as a chain, matched in every backend's index,
 * the choice made, counted and its ticket given back. The goal is at most 1.5x the baseline, a loop that only hashes
 * the same bytes with the same hash ({@link PromptBlocks#hashBlock}), and no allocation after warm-up
 * ({@code -prof gc}: {@code gc.alloc.rate.norm} 0 B/op).
 * <p>
 * This class is a JMH {@code Scope.Thread} state: each benchmark thread has its own prompt and ticket (the chooser and
 * its indexes are threadsafe).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = BenchFlags.AGRONA_ADD_EXPORTS)
public class PromptBlocksBenchmark
{
    private static final int BLOCK_BYTES = 256;
    private static final int BACKENDS = 8;

    /** Prompt size in KiB. */
    @Param({"32"})
    public int promptKib;

    char[] text;
    byte[] bytes;
    PromptBlocks prompt;
    BackendChooser chooser;
    PrefixTicket ticket;
    int modelId;
    long promptTokens;

    /** Builds the prompt, the chooser and the indexes (2 warm backends). */
    @Setup(Level.Trial)
    public void setup() throws InvalidConfigurationException
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; sb.length() < promptKib << 10; i++)
        {
            sb.append("Line ").append(i).append(": the system prompt of an agent, with its tools and rules. ");
        }
        sb.setLength(promptKib << 10);
        text = sb.toString().toCharArray();
        bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        promptTokens = bytes.length / 4;
        final StringBuilder yaml = new StringBuilder("models:\n  - name: m\n    backend_refs:\n");
        for (int i = 0; i < BACKENDS; i++)
        {
            yaml.append("      - {endpoint: '127.0.0.1:").append(9400 + i).append("'}\n");
        }
        yaml.append("    prefix_affinity: {block_bytes: ").append(BLOCK_BYTES).append("}\n")
            .append("decisions:\n  - name: d\n    modelRefs: [{model: m}]\n");
        final LoadedConfig loaded = ConfigLoader.load("bench.yaml", yaml.toString(), null);
        chooser = BackendChooser.of(loaded, Map.of(), new PrefixBackends());
        modelId = loaded.plans().modelId("m");
        prompt = new PromptBlocks();
        prompt.appendUtf8(text, 0, text.length, bytes.length);
        final int n = prompt.cut(BLOCK_BYTES);
        final long[] hashes = new long[n];
        for (int i = 0; i < n; i++)
        {
            hashes[i] = prompt.hash(i);
        }
        final List<BackendPrefix> prefixes = chooser.prefixBackends(modelId);
        final long[] other = new long[4096];
        for (int b = 0; b < BACKENDS; b++)
        {
            for (int i = 0; i < other.length; i++)
            {
                other[i] = 0x5DEECE66DL * (b * 4096L + i + 1);
            }
            prefixes.get(b).index().insert(other, other.length);
            if (b == 3 || b == 6)
            {
                prefixes.get(b).index().insert(hashes, n);
            }
        }
        ticket = new PrefixTicket();
        if (promptBlocksAndChoice() == 0 || ticket.result() != PrefixTicket.WARM)
        {
            throw new IllegalStateException("the benchmark prompt is not warm on its two backends");
        }
    }

    /** @return the chosen backend's port plus the prompt's block count. */
    @Benchmark
    public int promptBlocksAndChoice()
    {
        prompt.clear();
        prompt.appendUtf8(text, 0, text.length, bytes.length);
        final Backend backend = chooser.choose(modelId, prompt, promptTokens, ticket);
        ticket.abandoned();
        return backend.port() + prompt.blockCount();
    }

    /** @return the chain of the same bytes' full blocks, with the same hash. */
    @Benchmark
    public long hashOnly()
    {
        final byte[] b = bytes;
        long chain = PromptBlocks.CHAIN_SEED;
        for (int at = 0; at + BLOCK_BYTES <= b.length; at += BLOCK_BYTES)
        {
            chain = PromptBlocks.hashBlock(chain, b, at, BLOCK_BYTES);
        }
        return chain;
    }
}
