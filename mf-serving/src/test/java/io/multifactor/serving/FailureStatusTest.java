package io.multifactor.serving;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;

import static org.assertj.core.api.Assertions.assertThat;

class FailureStatusTest
{
    /** As the OpenAI SDK's and LangChain4j's: an int accessor. */
    public static final class ServiceException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
        private final int status;

        ServiceException(final int status)
        {
            super("status " + status);
            this.status = status;
        }

        public int statusCode()
        {
            return status;
        }
    }

    /** As Spring's HttpStatusCode. */
    public static final class Code
    {
        private final int value;

        Code(final int value)
        {
            this.value = value;
        }

        public int value()
        {
            return value;
        }
    }

    /** As Spring's RestClientResponseException: an object accessor whose value() is the status. */
    public static final class ResponseException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
        private final transient Code code;

        ResponseException(final int status, final Throwable cause)
        {
            super("response " + status, cause);
            this.code = new Code(status);
        }

        public Code getStatusCode()
        {
            return code;
        }
    }

    @Test
    void shouldReadTheStatusOfTheOutermostExceptionThatHasOne()
    {
        assertThat(FailureStatus.of(new ServiceException(503))).isEqualTo(503);
        assertThat(FailureStatus.of(new ResponseException(429, null))).isEqualTo(429);
        assertThat(FailureStatus.of(new RuntimeException("wrapped", new ServiceException(500)))).isEqualTo(500);
        assertThat(FailureStatus.of(new ResponseException(502, new ServiceException(500)))).isEqualTo(502);
    }

    @Test
    void shouldReportZeroWithoutAStatusOrForOneOutOfRange()
    {
        assertThat(FailureStatus.of(new UncheckedIOException(new IOException("connection refused")))).isZero();
        assertThat(FailureStatus.of(new ServiceException(0))).isZero();
        assertThat(FailureStatus.of(new ServiceException(700))).isZero();
        assertThat(FailureStatus.of(new IllegalStateException("no status"))).isZero();
    }

    @Test
    void shouldStopOnADeepChain()
    {
        Throwable deep = new ServiceException(500);
        for (int i = 0; i < FailureStatus.MAX_CAUSES; i++)
        {
            deep = new RuntimeException("level " + i, deep);
        }
        assertThat(FailureStatus.of(deep)).as("the status lies past the causes followed").isZero();
        assertThat(FailureStatus.of(deep.getCause())).isEqualTo(500);
    }
}
