package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.HttpTrailers;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.multifactor.envoy.FakeEnvoy.requestBody;
import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseBody;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static io.multifactor.envoy.FakeEnvoy.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Messages Envoy never sends, or bodies no client should: each is refused (a gRPC error or an immediate 4xx), no lease
 * leaks, and the service goes on serving a good request after every one of them, on the same server.
 */
@Timeout(120)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExtProcMalformedInputTest
{
    private EnvoyFixture fixture;

    @BeforeAll
    void start(@TempDir final Path dir) throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
    }

    @AfterAll
    void stop()
    {
        if (fixture != null)
        {
            fixture.close();
        }
    }

    /** Proves the service still routes and ends a lease after whatever came before. */
    private void assertStillServing() throws Exception
    {
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        final ProcessingResponse routed = stream.exchange(requestHeaders(true, "x-mf-decision", "quality"));
        assertThat(routed.getRequestHeaders().getResponse().getClearRouteCache()).isTrue();
        stream.exchange(responseHeaders(true, ":status", "200"));
        assertThat(stream.finish()).isEqualTo(Status.OK);
        fixture.awaitNothingInFlight();
    }

    private Status refused(final ProcessingRequest... messages) throws Exception
    {
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        for (final ProcessingRequest message : messages)
        {
            stream.send(message);
        }
        final Status end = stream.awaitEnd();
        fixture.awaitNothingInFlight();
        assertStillServing();
        return end;
    }

    private ProcessingResponse answeredWithBody(final String body) throws Exception
    {
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.exchange(requestHeaders(false, ":method", "POST", ":path", "/v1/chat/completions"));
        final ProcessingResponse answer = stream.exchange(requestBody(body, true));
        assertThat(stream.finish()).isEqualTo(Status.OK);
        fixture.awaitNothingInFlight();
        assertStillServing();
        return answer;
    }

    @Test
    void shouldRefuseABodyBeforeTheHeaders() throws Exception
    {
        final Status end = refused(requestBody("{\"model\":\"quality\"}", true));
        assertThat(end.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(end.getDescription()).contains("request_body before request_headers");
    }

    @Test
    void shouldRefuseResponseMessagesBeforeTheRequestWasRouted() throws Exception
    {
        assertThat(refused(responseHeaders(true, ":status", "200")).getDescription())
            .contains("response_headers before the request was routed");
        assertThat(refused(requestHeaders(false, ":method", "POST"), responseBody("data: x\n\n", true))
            .getDescription()).contains("response_body before the request was routed");
    }

    @Test
    void shouldRefuseAResponseBodyBeforeItsHeadersAndEndTheLease() throws Exception
    {
        final Status end = refused(requestHeaders(true, "x-mf-decision", "quality"), responseBody("data: x\n\n", false));
        assertThat(end.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(end.getDescription()).contains("response_body before response_headers");
    }

    @Test
    void shouldRefuseAMessageWithNoRequestFieldAndTrailersOutOfOrder() throws Exception
    {
        assertThat(refused(ProcessingRequest.getDefaultInstance()).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(refused(ProcessingRequest.newBuilder().setResponseTrailers(HttpTrailers.getDefaultInstance()).build())
            .getDescription()).contains("response_trailers out of order");
        assertThat(refused(requestHeaders(true, "x-mf-decision", "quality"),
            ProcessingRequest.newBuilder().setRequestTrailers(HttpTrailers.getDefaultInstance()).build())
            .getDescription()).contains("request_trailers out of order");
    }

    @Test
    void shouldAnswer400ToABodyThatIsNotJsonOrNotAnObject() throws Exception
    {
        for (final String garbage : new String[] {"{\"model\": \"quality\", ", "not json at all", "[1, 2, 3]", "\"x\"",
            "{\"model\": 42}", "", "\u0000\u0001\u0002\uFFFF"})
        {
            final ProcessingResponse answer = answeredWithBody(garbage);
            assertThat(answer.hasImmediateResponse()).as(garbage).isTrue();
            assertThat(answer.getImmediateResponse().getStatus().getCodeValue()).as(garbage).isEqualTo(400);
            assertThat(Json.text(utf8(answer.getImmediateResponse().getBody()), "error", "type"))
                .isEqualTo("invalid_request_error");
        }
    }

    @Test
    void shouldAnswer400ToADecisionHeaderThatIsTooLong() throws Exception
    {
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        final ProcessingResponse answer = stream.exchange(requestHeaders(true, "x-mf-decision", "q".repeat(1000)));
        assertThat(answer.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(400);
        assertThat(utf8(answer.getImmediateResponse().getBody())).contains("longer than 256 bytes");
        assertThat(stream.finish()).isEqualTo(Status.OK);
        assertStillServing();
    }

    @Test
    void shouldRouteThroughHugeHeadersItDoesNotRead() throws Exception
    {
        final String[] headers = new String[2 * 2001];
        for (int i = 0; i < 2000; i++)
        {
            headers[2 * i] = "x-filler-" + i;
            headers[2 * i + 1] = "v".repeat(512);
        }
        headers[4000] = "x-mf-decision";
        headers[4001] = "quality";
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        final ProcessingResponse routed = stream.exchange(requestHeaders(true, headers));
        assertThat(routed.getRequestHeaders().getResponse().getClearRouteCache()).isTrue();
        stream.exchange(responseHeaders(true, ":status", "200"));
        assertThat(stream.finish()).isEqualTo(Status.OK);
        fixture.awaitNothingInFlight();
    }

    @Test
    void shouldRefuseAMessageOverTheSizeLimitWithoutALease() throws Exception
    {
        // grpc-java logs the refused frame on this logger: capture it instead of printing it.
        final Logger logger = Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerStream");
        final List<LogRecord> records = new CopyOnWriteArrayList<>();
        final Handler capture = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                records.add(record);
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        final boolean parents = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false);
        logger.addHandler(capture);
        try
        {
            final FakeEnvoy.Stream stream = fixture.envoy.open();
            stream.exchange(requestHeaders(false, ":method", "POST", "x-mf-decision", "quality"));
            stream.send(requestBody("x".repeat(ExtProcServer.MAX_MESSAGE_BYTES + 1), true));
            assertThat(stream.awaitEnd().getCode()).isIn(Status.Code.RESOURCE_EXHAUSTED, Status.Code.CANCELLED);
            fixture.awaitNothingInFlight();
            assertStillServing();
            assertThat(records).anySatisfy(r -> assertThat(String.valueOf(r.getThrown()))
                .contains("exceeds maximum size"));
        }
        finally
        {
            logger.removeHandler(capture);
            logger.setUseParentHandlers(parents);
        }
    }

    @Test
    void shouldAnswer413ToABodyOver8MiBInChunks() throws Exception
    {
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.exchange(requestHeaders(false, ":method", "POST", "x-mf-decision", "quality"));
        final String chunk = "x".repeat(1024 * 1024);
        ProcessingResponse answer = null;
        for (int i = 0; i < 9 && (answer == null || !answer.hasImmediateResponse()); i++)
        {
            answer = stream.exchange(requestBody(chunk, false));
        }
        assertThat(answer.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(413);
        assertThat(stream.finish()).isEqualTo(Status.OK);
        fixture.awaitNothingInFlight();
        assertStillServing();
    }

    @Test
    void shouldIgnoreMessagesAfterARefusal() throws Exception
    {
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.send(requestBody("x", true));
        stream.send(requestHeaders(true, "x-mf-decision", "quality"));
        stream.send(responseHeaders(true, ":status", "200"));
        assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        fixture.awaitNothingInFlight();
        assertThat(fixture.app.context().internalErrors()).isZero();
        assertStillServing();
    }
}
