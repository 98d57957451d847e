package io.multifactor.kernel.clock;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ManualClockTest
{
    @Test
    void shouldStandStillUntilMoved()
    {
        final ManualClock clock = new ManualClock(5L);

        assertThat(clock.nanoTime()).isEqualTo(5L);
        assertThat(clock.nanoTime()).isEqualTo(5L);
    }

    @Test
    void shouldAdvanceInAnyUnit()
    {
        final ManualClock clock = new ManualClock();

        clock.advanceNs(7L).advanceMs(2L).advance(1, TimeUnit.SECONDS);

        assertThat(clock.nanoTime()).isEqualTo(1_002_000_007L);
    }

    @Test
    void shouldMoveToAnAbsoluteTime()
    {
        final ManualClock clock = new ManualClock(10L);

        clock.timeNs(10L).timeNs(99L);

        assertThat(clock.nanoTime()).isEqualTo(99L);
    }

    @Test
    void shouldRefuseToGoBackwards()
    {
        final ManualClock clock = new ManualClock(100L);

        assertThatThrownBy(() -> clock.timeNs(99L)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("never goes backwards");
        assertThatThrownBy(() -> clock.advanceNs(-1L)).isInstanceOf(IllegalArgumentException.class);
        assertThat(clock.nanoTime()).isEqualTo(100L);
    }
}
