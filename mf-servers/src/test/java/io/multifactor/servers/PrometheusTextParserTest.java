package io.multifactor.servers;

import io.multifactor.kernel.signal.ServerKind;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class PrometheusTextParserTest
{
    private static PrometheusTextParser parser(final String... names)
    {
        final double[] bounds = new double[names.length];
        java.util.Arrays.fill(bounds, Double.MAX_VALUE);
        return new PrometheusTextParser(names, bounds);
    }

    private static void parse(final PrometheusTextParser parser, final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        parser.parse(bytes, 0, bytes.length);
    }

    @Test
    void shouldReadVllmV1SummingWaitingAndRunningAndAveragingKvUse()
    {
        final ServerMetricsReader reader = new ServerMetricsReader(ServerKind.VLLM);
        final byte[] body = Fixtures.bytes("vllm-v1.metrics");
        assertThat(reader.read(body, 0, body.length)).isTrue();
        assertThat(reader.waiting()).isEqualTo(5.0);
        assertThat(reader.running()).isEqualTo(5.0);
        assertThat(reader.kvUse()).isEqualTo(0.5);
        assertThat(reader.linesMalformed()).isZero();
        assertThat(reader.samplesRefused()).isZero();
    }

    @Test
    void shouldFallBackToTheOlderGpuCacheNameOfVllm()
    {
        final ServerMetricsReader reader = new ServerMetricsReader(ServerKind.VLLM);
        final byte[] body = Fixtures.bytes("vllm-v0.metrics");
        assertThat(reader.read(body, 0, body.length)).isTrue();
        assertThat(reader.waiting()).isEqualTo(2.0);
        assertThat(reader.running()).isEqualTo(6.0);
        assertThat(reader.kvUse()).isEqualTo(0.4);
    }

    @Test
    void shouldReadSglang()
    {
        final ServerMetricsReader reader = new ServerMetricsReader(ServerKind.SGLANG);
        final byte[] body = Fixtures.bytes("sglang.metrics");
        assertThat(reader.read(body, 0, body.length)).isTrue();
        assertThat(reader.waiting()).isEqualTo(7.0);
        assertThat(reader.running()).isEqualTo(12.0);
        assertThat(reader.kvUse()).isEqualTo(0.28);
        // the names of another kind are not read
        assertThat(new ServerMetricsReader(ServerKind.VLLM).read(body, 0, body.length)).isFalse();
    }

    @Test
    void shouldSkipLabelValuesWithEscapesCommentsAndTimestamps()
    {
        final PrometheusTextParser parser = parser("w");
        parse(parser, String.join("\n",
            "# a comment with w 100 in it",
            "# HELP w Waiting, with \\\\ and \\n.",
            "# TYPE w gauge",
            "w{a=\"x\\\"y\\\\z\\n}\",b=\"{w 7}\",} 1 1712345678000",
            "w {c = \"d\"} 2e0 -5",
            "  w\t3.5e-1\r",
            "w{\"w.utf8\",a=\"b\"} 0.15",
            "w 4",
            ""));
        assertThat(parser.seriesCount(0)).isEqualTo(5);
        assertThat(parser.sum(0)).isCloseTo(1 + 2 + 0.35 + 0.15 + 4, within(1e-12));
        assertThat(parser.linesMalformed()).isZero();
    }

    @Test
    void shouldNotConfuseANameWithItsPrefixOrSuffix()
    {
        final PrometheusTextParser parser = parser("vllm:num_requests_waiting");
        parse(parser, "vllm:num_requests_waiting_total 9\nvllm:num_requests_waitin 9\nvllm:num_requests_waiting 1\n");
        assertThat(parser.seriesCount(0)).isEqualTo(1);
        assertThat(parser.sum(0)).isEqualTo(1.0);
    }

    @Test
    void shouldRefuseNanInfinityNegativeAndOutOfBoundValuesAndCountThem()
    {
        final PrometheusTextParser parser =
            new PrometheusTextParser(new String[] {"w", "kv"}, new double[] {Double.MAX_VALUE, 1.0});
        parse(parser, String.join("\n",
            "w NaN", "w +Inf", "w -Inf", "w -1", "w 3", "w inf", "w Infinity",
            "kv 1.5", "kv 1", "kv 0", "kv nan", ""));
        assertThat(parser.seriesCount(0)).isEqualTo(1);
        assertThat(parser.sum(0)).isEqualTo(3.0);
        assertThat(parser.seriesCount(1)).isEqualTo(2);
        assertThat(parser.mean(1)).isEqualTo(0.5);
        assertThat(parser.samplesRefused()).isEqualTo(8);
        assertThat(parser.linesMalformed()).isZero();
    }

    @Test
    void shouldCountMalformedLinesAndKeepGoing()
    {
        final PrometheusTextParser parser = parser("w");
        parse(parser, String.join("\n",
            "w", "w{a=\"b\" 1", "w{a=b} 1", "w{a=\"unterminated} 1", "w 1 2 3", "w 1x", "w 1e", "w --1", "w 0x10",
            "9w 1", "{} 1", "w{=\"v\"} 1", "w 1 notatime", "w 2", "w{a=\"b\"} 3"));
        assertThat(parser.seriesCount(0)).isEqualTo(2);
        assertThat(parser.sum(0)).isEqualTo(5.0);
        assertThat(parser.linesMalformed()).isEqualTo(13);
    }

    @Test
    void shouldDecodeNumbersLikeTheJdk()
    {
        final PrometheusTextParser parser = parser("w");
        final Random random = new Random(18);
        for (int i = 0; i < 20_000; i++)
        {
            final long mantissa = random.nextLong() >>> (1 + random.nextInt(40));
            final int scale = random.nextInt(16);
            final StringBuilder text = new StringBuilder(Long.toString(mantissa));
            if (scale > 0 && text.length() > scale)
            {
                text.insert(text.length() - scale, '.');
            }
            if (random.nextBoolean())
            {
                text.append(random.nextBoolean() ? 'e' : 'E').append(random.nextInt(45) - 22);
            }
            final String number = text.toString();
            parse(parser, "w " + number + "\n");
            final double expected = Double.parseDouble(number);
            assertThat(parser.seriesCount(0)).as(number).isEqualTo(1);
            if (number.indexOf('e') < 0 && number.indexOf('E') < 0 &&
                number.replace(".", "").replaceFirst("^0+", "").length() <= 15)
            {
                assertThat(parser.sum(0)).as(number).isEqualTo(expected);
            }
            else
            {
                assertThat(parser.sum(0)).as(number).isCloseTo(expected, within(Math.ulp(expected) * 4));
            }
        }
        parse(parser, "w 1.2288e+04\nw .5\nw 5.\nw 0.000000000000000000000000001e27\nw 1e400\nw 1e-400\n");
        assertThat(parser.seriesCount(0)).isEqualTo(5); // 1e400 is infinite: refused
        assertThat(parser.sum(0)).isCloseTo(12288 + 0.5 + 5 + 1, within(1e-9));
    }

    @Test
    void shouldNeverThrowOnGarbage()
    {
        final ServerMetricsReader reader = new ServerMetricsReader(ServerKind.VLLM);
        final Random random = new Random(7);
        final byte[] alphabet = "vllm:num_requests_waiting{}=\",\\ \n\t#0123456789.eE+-NaInf".getBytes(StandardCharsets.US_ASCII);
        final byte[] body = new byte[4096];
        int usable = 0;
        for (int i = 0; i < 5_000; i++)
        {
            final int length = random.nextInt(body.length);
            for (int j = 0; j < length; j++)
            {
                body[j] = random.nextInt(4) == 0 ? (byte)random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
            }
            if (reader.read(body, 0, length))
            {
                usable++;
            }
            assertThat(reader.linesMalformed()).isBetween(0, length);
        }
        assertThat(usable).isLessThan(5_000);
    }

    @Test
    void shouldReadOnlyTheGivenRange()
    {
        final PrometheusTextParser parser = parser("w");
        final byte[] bytes = "w 1\nw 2\nw 4\n".getBytes(StandardCharsets.US_ASCII);
        parser.parse(bytes, 4, 4);
        assertThat(parser.sum(0)).isEqualTo(2.0);
        parser.parse(bytes, 4, 3); // no final newline
        assertThat(parser.sum(0)).isEqualTo(2.0);
        parser.parse(bytes, 0, 0);
        assertThat(parser.seriesCount(0)).isZero();
    }
}
