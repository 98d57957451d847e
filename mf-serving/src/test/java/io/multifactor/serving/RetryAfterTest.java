package io.multifactor.serving;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The one {@code Retry-After} parser: delay-seconds only (RFC 9110), blanks around it ignored, anything else none. */
class RetryAfterTest
{
    @Test
    void shouldReadDelaySecondsAsMilliseconds()
    {
        assertThat(RetryAfter.delayMs("7")).isEqualTo(7_000L);
        assertThat(RetryAfter.delayMs("120")).isEqualTo(120_000L);
        assertThat(RetryAfter.delayMs("007")).isEqualTo(7_000L);
        assertThat(RetryAfter.delayMs(" 5\t")).isEqualTo(5_000L);
        assertThat(RetryAfter.delayMs(new StringBuilder("3"))).isEqualTo(3_000L);
    }

    @Test
    void shouldReadTheLongestDelayWithoutOverflowAndRefuseLonger()
    {
        assertThat(RetryAfter.delayMs("999999999")).isEqualTo(999_999_999_000L);
        assertThat(RetryAfter.delayMs("1000000000")).isZero();
        assertThat(RetryAfter.delayMs("99999999999999999999999")).isZero();
    }

    @Test
    void shouldTakeAnythingButDelaySecondsAsNoDelay()
    {
        assertThat(RetryAfter.delayMs(null)).isZero();
        assertThat(RetryAfter.delayMs("")).isZero();
        assertThat(RetryAfter.delayMs("   ")).isZero();
        assertThat(RetryAfter.delayMs("0")).isZero();
        assertThat(RetryAfter.delayMs("-5")).isZero();
        assertThat(RetryAfter.delayMs("+5")).isZero();
        assertThat(RetryAfter.delayMs("1.5")).isZero();
        assertThat(RetryAfter.delayMs("5s")).isZero();
        assertThat(RetryAfter.delayMs("5 5")).isZero();
        assertThat(RetryAfter.delayMs("Wed, 21 Oct 2015 07:28:00 GMT")).isZero();
        assertThat(RetryAfter.delayMs("\u0665")).as("an Arabic-Indic digit is not a DIGIT").isZero();
    }
}
