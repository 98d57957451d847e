package io.multifactor.servers;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class OrcaLoadReportParserTest
{
    private final OrcaLoadReportParser parser = new OrcaLoadReportParser();

    @Test
    void shouldReadTheTextFormat()
    {
        assertThat(parser.parse("TEXT named_metrics.kv_cache_usage_perc=0.4, named_metrics.num_requests_waiting=3"))
            .isTrue();
        assertThat(parser.kvUse()).isEqualTo(0.4);
        assertThat(parser.waiting()).isEqualTo(3.0);
        assertThat(parser.running()).isNaN();
        assertThat(parser.parse("TEXT cpu_utilization=0.3,named_metrics.num_requests_running = 2 ," +
            "named_metrics.num_requests_waiting=0,named_metrics.kv_cache_usage_perc=1e-1,rps_fractional=10")).isTrue();
        assertThat(parser.running()).isEqualTo(2.0);
        assertThat(parser.waiting()).isZero();
        assertThat(parser.kvUse()).isEqualTo(0.1);
    }

    @Test
    void shouldReadTheJsonFormat()
    {
        assertThat(parser.parse("JSON {\"cpu_utilization\": 0.5, \"request_cost\": {\"a\": [1, {\"b\": \"}\"}]}, " +
            "\"named_metrics\": {\"kv_cache_usage_perc\": 0.25, \"num_requests_waiting\": 4, " +
            "\"num_requests_running\": 7}}")).isTrue();
        assertThat(parser.kvUse()).isEqualTo(0.25);
        assertThat(parser.waiting()).isEqualTo(4.0);
        assertThat(parser.running()).isEqualTo(7.0);
    }

    @Test
    void shouldRefuseOutOfRangeValuesAndUnknownShapes()
    {
        assertThat(parser.parse("TEXT named_metrics.kv_cache_usage_perc=1.5, named_metrics.num_requests_waiting=-1"))
            .isFalse();
        assertThat(parser.valuesRefused()).isEqualTo(2);
        assertThat(parser.parse("TEXT named_metrics.kv_cache_usage_perc=NaN, named_metrics.num_requests_waiting=x"))
            .isFalse();
        assertThat(parser.valuesRefused()).isEqualTo(2);
        assertThat(parser.parse("BIN AAAA")).isFalse();
        assertThat(parser.parse(null)).isFalse();
        assertThat(parser.parse("TEXT named_metrics.num_requests_waiting=1")).isFalse(); // no KV-cache use
        assertThat(parser.waiting()).isEqualTo(1.0);
        assertThat(parser.parse("TEXT " + "x".repeat(OrcaLoadReportParser.MAX_HEADER_CHARS))).isFalse();
        assertThat(parser.parse("JSON {\"named_metrics\": {\"kv_cache_usage_perc\": 0.2, \"num_requests_waiting\"")).isFalse();
    }

    @Test
    void shouldNeverThrowOnGarbage()
    {
        final Random random = new Random(3);
        final String alphabet = "TEXT JSON named_metrics.kv_cache_usage_perc=num_requests_waiting{}[]\":,\\ 0.5e-";
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < 20_000; i++)
        {
            text.setLength(0);
            text.append(random.nextBoolean() ? "TEXT " : "JSON ");
            final int length = random.nextInt(200);
            for (int j = 0; j < length; j++)
            {
                text.append(random.nextInt(8) == 0 ? (char)random.nextInt(0x3000) : alphabet.charAt(random.nextInt(alphabet.length())));
            }
            parser.parse(text);
            assertThat(parser.valuesRefused()).isGreaterThanOrEqualTo(0);
        }
    }
}
