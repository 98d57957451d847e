package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sessions in the ext_proc service (section 4.6), in both modes: streams with one {@code x-session-id} (or
 * {@code x-session-token}) are routed to one model where streams without it scatter over two equal models.
 */
@Timeout(60)
class ExtProcSessionTest
{
    private static final String CONFIG = String.join("\n",
        "models:",
        "  - {name: one, quality_score: 0.5, backend_refs: [{endpoint: 127.0.0.1:9001}]}",
        "  - {name: two, quality_score: 0.5, backend_refs: [{endpoint: 127.0.0.1:9002}]}",
        "decisions:",
        "  - name: chat",
        "    modelRefs: [{model: one}, {model: two}]",
        "    algorithm:",
        "      type: multi_factor",
        "      multi_factor: {weights: {quality: 1.0}, tie_break: random, session: {}}",
        "");

    @TempDir
    Path dir;

    private EnvoyFixture fixture;

    @AfterEach
    void tearDown() throws Exception
    {
        if (fixture != null)
        {
            fixture.close();
        }
    }

    private String route(final String... sessionHeaders) throws Exception
    {
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        final String[] headers = new String[6 + sessionHeaders.length];
        System.arraycopy(new String[] {":method", "GET", ":path", "/v1/models", "x-mf-decision", "chat"}, 0, headers, 0, 6);
        System.arraycopy(sessionHeaders, 0, headers, 6, sessionHeaders.length);
        final ProcessingResponse routed = stream.exchange(requestHeaders(true, headers));
        final Map<String, String> set = ExtProcRequestPathTest.headers(routed.getRequestHeaders().getResponse());
        // The vsr mode names the model; the endpoint mode names its backend (one per model here).
        final String endpoint = set.get("x-gateway-destination-endpoint");
        final String model = endpoint == null ? set.get("x-selected-model") :
            endpoint.endsWith(":9001") ? "one" : endpoint.endsWith(":9002") ? "two" : endpoint;
        stream.exchange(responseHeaders(true, ":status", "200"));
        assertThat(stream.finish()).isEqualTo(Status.OK);
        return model;
    }

    @Test
    void shouldRouteEverySessionStreamToOneModelInBothModes() throws Exception
    {
        for (final EnvoyMode mode : new EnvoyMode[] {EnvoyMode.VSR, EnvoyMode.ENDPOINT})
        {
            fixture = new EnvoyFixture(java.nio.file.Files.createDirectories(dir.resolve(mode.name())), mode, CONFIG);
            final Set<String> scattered = new HashSet<>();
            for (int i = 0; i < 40 && scattered.size() < 2; i++)
            {
                scattered.add(route());
            }
            assertThat(scattered).containsExactlyInAnyOrder("one", "two");
            final String first = route("x-session-id", "conversation-9");
            final String token = route("x-session-token", "agent-3");
            for (int i = 0; i < 8; i++)
            {
                assertThat(route("x-session-id", "conversation-9")).isEqualTo(first);
                assertThat(route("x-session-token", "agent-3")).isEqualTo(token);
            }
            fixture.close();
            fixture = null;
        }
    }
}
