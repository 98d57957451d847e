package io.multifactor.servers;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The shared strict JSON scanner: names with escapes, values skipped whole, anything not JSON refused at once. */
class JsonScannerTest
{
    private static final byte[] A = "a".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BC = "bc".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] D = "d".getBytes(StandardCharsets.US_ASCII);

    private final JsonScanner scanner = new JsonScanner(3);

    @Test
    void shouldMatchNamesWithTheirEscapesDecoded()
    {
        assertThat(name("\"a\"")).isEqualTo(1);
        assertThat(name("\"b\\u0063\"")).isEqualTo(2);
        assertThat(name("\"\\u0064\"")).isEqualTo(3);
        assertThat(name("\"ab\"")).isZero();
        assertThat(name("\"\u00e9\"")).isZero();
        assertThat(name("\"a")).isEqualTo(-1);
        assertThat(name("a")).isEqualTo(-1);
        assertThat(name("\"\\x\"")).isEqualTo(-1);
    }

    @Test
    void shouldSkipWholeValuesAndRefuseWhatIsNotJson()
    {
        for (final String value : new String[] {"\"x\\\"y\"", "-0.5e+3", "0", "true", "false", "null", "[]", "{}",
            "[1, {\"k\": [\"}\"]}]"})
        {
            scanner.reset(bytes(value + ","), 0, value.length() + 1);
            assertThat(scanner.skipValue()).as(value).isTrue();
            assertThat(scanner.position()).as(value).isEqualTo(value.length());
        }
        for (final String value : new String[] {"01", "1.", "-", "tru", "NaN", "'x'", "[1,]", "{\"k\" 1}", "[[[[1]]]]",
            "\"\u0001\""})
        {
            scanner.reset(bytes(value), 0, bytes(value).length);
            assertThat(scanner.skipValue()).as(value).isFalse();
        }
    }

    @Test
    void shouldKeepTheIntegersThatFitALong()
    {
        assertThat(number("42")).isTrue();
        assertThat(scanner.integerFitsLong()).isTrue();
        assertThat(scanner.integerValue()).isEqualTo(42L);
        assertThat(number("-9223372036854775808")).isTrue();
        assertThat(scanner.integerValue()).isEqualTo(Long.MIN_VALUE);
        assertThat(number("9223372036854775808")).isTrue();
        assertThat(scanner.integerFitsLong()).isFalse();
        assertThat(number("4.0")).isTrue();
        assertThat(scanner.integerFitsLong()).isFalse();
    }

    @Test
    void shouldWalkAnObjectMemberByMember()
    {
        final byte[] text = bytes(" { \"a\" : [1, 2] , \"d\": {\"x\": null} } trailing");
        scanner.reset(text, 0, text.length);
        assertThat(scanner.enter('{')).isTrue();
        assertThat(scanner.emptyContainer('}')).isFalse();
        assertThat(scanner.name(A, BC, D)).isEqualTo(1);
        assertThat(scanner.colon()).isTrue();
        assertThat(scanner.at('[')).isTrue();
        assertThat(scanner.skipValue()).isTrue();
        assertThat(scanner.next('}')).isEqualTo(1);
        assertThat(scanner.name(A, BC, D)).isEqualTo(3);
        assertThat(scanner.colon()).isTrue();
        assertThat(scanner.skipValue()).isTrue();
        assertThat(scanner.next('}')).isZero();
    }

    private int name(final String text)
    {
        final byte[] bytes = bytes(text);
        scanner.reset(bytes, 0, bytes.length);
        return scanner.name(A, BC, D);
    }

    private boolean number(final String text)
    {
        final byte[] bytes = bytes(text);
        scanner.reset(bytes, 0, bytes.length);
        return scanner.number();
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
