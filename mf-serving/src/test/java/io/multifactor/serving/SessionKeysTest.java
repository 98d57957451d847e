package io.multifactor.serving;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SessionKeys}: the documented FNV-1a 64 over the header's UTF-8 bytes (published test vectors), the same key
 * from a string and from its bytes, and which header names the session.
 */
class SessionKeysTest
{
    @Test
    void shouldHashWithFnv1a64AsPublished()
    {
        // Test vectors of the FNV reference (Fowler, Noll, Vo): FNV-1a 64 of "", "a" and "foobar".
        assertThat(SessionKeys.key("")).isEqualTo(0xcbf29ce484222325L);
        assertThat(SessionKeys.key("a")).isEqualTo(0xaf63dc4c8601ec8cL);
        assertThat(SessionKeys.key("foobar")).isEqualTo(0x85944171f73967e8L);
    }

    @Test
    void shouldHashTheUtf8BytesOfAnyText()
    {
        for (final String value : new String[] {"conversation-1", "caf\u00e9", "\u65e5\u672c\u8a9e", "emoji \ud83d\ude00",
            "lone \ud83d surrogate", "\u07ff\u0800\uffff"})
        {
            final byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            assertThat(SessionKeys.key(value)).as(value).isEqualTo(SessionKeys.key(utf8, 0, utf8.length));
        }
        assertThat(SessionKeys.key("s-1")).isNotEqualTo(SessionKeys.key("s-2"));
    }

    @Test
    void shouldPreferTheSessionIdAndTreatEmptyAsAbsent()
    {
        assertThat(SessionKeys.header("a", "b")).isEqualTo("a");
        assertThat(SessionKeys.header("", "b")).isEqualTo("b");
        assertThat(SessionKeys.header(null, "b")).isEqualTo("b");
        assertThat(SessionKeys.header(null, "")).isNull();
        assertThat(SessionKeys.header(null, null)).isNull();
    }
}
