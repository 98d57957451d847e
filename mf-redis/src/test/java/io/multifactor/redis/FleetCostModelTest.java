package io.multifactor.redis;

import io.multifactor.kernel.fleet.FleetSignals;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the Redis exchange's traffic grows with replicas and models, computed from the commands it sends (RESP framing
 * included) and the real sizes of its encoded entries: the 100-replica x 64-model case of docs/fleet.md.
 */
class FleetCostModelTest
{
    private static final int PERIODS_PER_S = 4;
    private static final int SAMPLES_PER_MODEL_AND_METRIC = 8;

    /** Bytes one replica moves per second, averaged; {@code [0]} out, {@code [1]} in, {@code [2]} aggregator peak. */
    static long[] bytesPerReplicaPerS(final int replicas, final int models)
    {
        final FleetCodec codec = new FleetCodec();
        final SplittableRandom random = new SplittableRandom(5);
        final FleetSignals one = new FleetSignals(models);
        final FleetSignals all = new FleetSignals(models);
        for (int m = 0; m < models; m++)
        {
            one.add("model-name-" + m);
            all.add("model-name-" + m);
        }
        for (int r = 0; r < replicas; r++)
        {
            for (int m = 0; m < models; m++)
            {
                for (int i = 0; i < SAMPLES_PER_MODEL_AND_METRIC; i++)
                {
                    final long ttft = 200_000L + random.nextLong(600_000L);
                    final long tpot = 10_000L + random.nextLong(40_000L);
                    all.ttft(m).recordValue(ttft);
                    all.tpot(m).recordValue(tpot);
                    if (r == 0)
                    {
                        one.ttft(m).recordValue(ttft);
                        one.tpot(m).recordValue(tpot);
                    }
                }
            }
        }
        final long entry = codec.encode(FleetCodec.KIND_REPLICA, "host-12345-9f8e7d6c", List.of(), one).length;
        final long aggregate = codec.encode(FleetCodec.KIND_FLEET, "host-12345-9f8e7d6c", List.of(), all).length +
            (long)replicas * 22;
        final String countsKey = "mf:{router-prod}:n:7093843212";
        final String digest = "0123456789abcdef0123456789abcdef01234567";
        final String id = "host-12345-9f8e7d6c";
        // One EVALSHA per period start: 5 keys, 9 arguments, a name and a count per model with in-flight requests.
        final String[] publish = new String[3 + 5 + 9 + 2 * models];
        publish[0] = "EVALSHA";
        publish[1] = digest;
        publish[2] = "5";
        for (int k = 0; k < 5; k++)
        {
            publish[3 + k] = countsKey;
        }
        final String[] settings = {"1000", id, "16000", "250", "100000000", "0", "", "1", "64"};
        System.arraycopy(settings, 0, publish, 8, settings.length);
        for (int m = 0; m < models; m++)
        {
            publish[17 + 2 * m] = "model-name-00";
            publish[18 + 2 * m] = "12";
        }
        final long publishPerPeriod = resp(publish);
        final long publishReplies = 4 + 4 * 4;
        final long readRequest = resp("EVALSHA", digest, "3", countsKey, countsKey, countsKey, "4096", "1048576", "1",
            id, "256", "20");
        final long readReply = 40 + models * (6L + 13 + 6L + 3);
        // Once per latency period the publication carries the replica's entry (one argument more in size).
        final long latencyWrite = entry + 10;
        // Averaged: once per latency period one replica of the fleet reads every entry and writes the aggregate.
        final long out = PERIODS_PER_S * (publishPerPeriod + readRequest) + latencyWrite + aggregate / replicas;
        final long in = PERIODS_PER_S * (publishReplies + readReply) + aggregate + entry;
        final long aggregatorPeak = (long)replicas * entry + aggregate;
        System.out.printf(Locale.ROOT, "%4d replicas x %3d models: entry %6d B, aggregate %7d B, per replica out %6.1f" +
            " KB/s, in %6.1f KB/s (aggregator's second: +%7.1f KB), Redis total %8.1f KB/s%n", replicas, models, entry,
            aggregate, out / 1000.0, in / 1000.0, aggregatorPeak / 1000.0, replicas * (out + in) / 1000.0);
        return new long[] {out, in, aggregatorPeak};
    }

    private static long resp(final String... args)
    {
        long bytes = 1 + Integer.toString(args.length).length() + 2;
        for (final String arg : args)
        {
            final int length = arg.getBytes(StandardCharsets.UTF_8).length;
            bytes += 1 + Integer.toString(length).length() + 2 + length + 2;
        }
        return bytes;
    }

    @Test
    void shouldStayUnderOneHundredKilobytesPerSecondPerReplicaAtOneHundredReplicasAndSixtyFourModels()
    {
        for (final int replicas : new int[] {3, 10, 100, 1000})
        {
            for (final int models : new int[] {8, 64})
            {
                bytesPerReplicaPerS(replicas, models);
            }
        }
        final long[] target = bytesPerReplicaPerS(100, 64);
        assertThat(target[0] + target[1]).isLessThanOrEqualTo(100_000L);
        // The per-replica figure grows far slower than the fleet: 100x the replicas, at most 2x the bytes (the aggregate
        // gains distinct buckets and one id per contributor).
        final long[] ten = bytesPerReplicaPerS(10, 64);
        final long[] thousand = bytesPerReplicaPerS(1000, 64);
        assertThat(thousand[0] + thousand[1]).isLessThanOrEqualTo((ten[0] + ten[1]) * 2);
    }
}
