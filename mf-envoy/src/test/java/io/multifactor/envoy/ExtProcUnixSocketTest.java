package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ExternalProcessorGrpc;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.multifactor.serving.ServingHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.multifactor.envoy.FakeEnvoy.requestBody;
import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseBody;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The service on a Unix domain socket, as Envoy reaches a sidecar through a cluster with a {@code pipe} address: a gRPC
 * client over the socket plays one full exchange; a stale socket file is replaced, a socket in use or a plain file in
 * its place refused; the file is gone after the shutdown. Linux only (grpc's epoll transport).
 */
@Timeout(60)
class ExtProcUnixSocketTest
{
    @TempDir
    Path dir;

    private Path config;
    private EventLoopGroup clientLoop;

    @BeforeEach
    void setUp() throws IOException
    {
        assumeTrue(Epoll.isAvailable(), "grpc's epoll transport is not available here (not Linux)");
        config = dir.resolve("router.yaml");
        Files.writeString(config, EnvoyFixture.CONFIG, StandardCharsets.UTF_8);
        clientLoop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    }

    @AfterEach
    void tearDown()
    {
        if (clientLoop != null)
        {
            clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    private ExtProcApp start(final Path socket) throws Exception
    {
        return ExtProcApp.start(config, EnvoyMode.VSR, UnixDomainSocketAddress.of(socket), 2_000,
            new SimpleMeterRegistry(), null);
    }

    private ManagedChannel channel(final Path socket)
    {
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollDomainSocketChannel.class).eventLoopGroup(clientLoop).usePlaintext()
            // no TCP keepalive on a Unix domain socket (Netty would warn of the unknown option)
            .withOption(ChannelOption.SO_KEEPALIVE, null)
            .maxInboundMessageSize(ExtProcServer.MAX_MESSAGE_BYTES).build();
    }

    @Test
    void shouldServeAFullExchangeAndHealthOverAUnixDomainSocket() throws Exception
    {
        final Path socket = dir.resolve("ext_proc.sock");
        try (ExtProcApp app = start(socket))
        {
            assertThat(app.address()).isEqualTo(UnixDomainSocketAddress.of(socket));
            assertThat(app.port()).isEqualTo(-1);
            try (FakeEnvoy envoy = new FakeEnvoy(channel(socket)))
            {
                assertThat(HealthGrpc.newBlockingStub(envoy.channel()).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.newBuilder().setService(ExternalProcessorGrpc.SERVICE_NAME).build())
                    .getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

                final FakeEnvoy.Stream stream = envoy.open();
                assertThat(stream.exchange(requestHeaders(false, ":method", "POST", ":path", "/v1/chat/completions")))
                    .isEqualTo(ExtProcResponses.CONTINUE_REQUEST_HEADERS);
                final ProcessingResponse routed = stream.exchange(requestBody(
                    "{\"model\":\"quality\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                    true));
                assertThat(routed.getRequestBody().getResponse().getClearRouteCache()).isTrue();
                assertThat(routed.getRequestBody().getResponse().getHeaderMutation().getSetHeadersList())
                    .anySatisfy(set ->
                    {
                        assertThat(set.getHeader().getKey()).isEqualTo(ServingHeaders.SELECTED_MODEL);
                        assertThat(FakeEnvoy.utf8(set.getHeader().getRawValue())).isEqualTo("premium-model");
                    });
                assertThat(FakeEnvoy.utf8(routed.getRequestBody().getResponse().getBodyMutation().getBody()))
                    .contains("\"model\":\"acme/premium-v2\"");
                final int premium = app.host().engine().requireModelId("premium-model");
                assertThat(app.host().engine().inflight(premium)).isEqualTo(1);
                assertThat(stream.exchange(responseHeaders(false, ":status", "200", "content-type",
                    "text/event-stream")).hasResponseHeaders()).isTrue();
                for (int i = 0; i < 4; i++)
                {
                    assertThat(stream.exchange(responseBody(ExtProcResponsePathTest.contentChunk(i), false)))
                        .isEqualTo(ExtProcResponses.CONTINUE_RESPONSE_BODY);
                }
                assertThat(stream.exchange(responseBody("data: [DONE]\n\n", true)))
                    .isEqualTo(ExtProcResponses.CONTINUE_RESPONSE_BODY);
                assertThat(stream.finish()).isEqualTo(Status.OK);
                assertThat(app.host().engine().inflight(premium)).isZero();
                assertThat(app.context().completed()).isEqualTo(1);
            }
        }
        assertThat(socket).doesNotExist();
    }

    @Test
    void shouldReplaceAStaleSocketAndRefuseOneInUseOrAFileThatIsNoSocket() throws Exception
    {
        final Path socket = dir.resolve("stale.sock");
        // A socket file nothing accepts on any more, as a process that died leaves it (closing does not remove it).
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            dead.bind(UnixDomainSocketAddress.of(socket));
        }
        assertThat(socket).exists();
        try (ExtProcApp app = start(socket))
        {
            assertThat(app.address()).isEqualTo(UnixDomainSocketAddress.of(socket));
            assertThatThrownBy(() -> start(socket)).isInstanceOf(IOException.class)
                .hasMessageContaining("another process already serves on " + socket);
            // The refused start left the running one alone.
            try (FakeEnvoy envoy = new FakeEnvoy(channel(socket)))
            {
                final FakeEnvoy.Stream stream = envoy.open();
                assertThat(stream.exchange(requestHeaders(false, ":method", "POST")))
                    .isEqualTo(ExtProcResponses.CONTINUE_REQUEST_HEADERS);
                stream.cancel();
            }
        }
        final Path plain = dir.resolve("plain.sock");
        Files.writeString(plain, "not a socket", StandardCharsets.UTF_8);
        assertThatThrownBy(() -> start(plain)).isInstanceOf(IOException.class)
            .hasMessageContaining(plain + " exists and is not a socket");
        assertThat(Files.readString(plain, StandardCharsets.UTF_8)).isEqualTo("not a socket");
    }
}
