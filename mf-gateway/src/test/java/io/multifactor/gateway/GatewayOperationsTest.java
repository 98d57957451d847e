package io.multifactor.gateway;

import io.multifactor.config.ConfigLoader;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.multifactor.gateway.GatewayProxyTest.chat;
import static io.multifactor.gateway.GatewayProxyTest.poll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an operator relies on, over real sockets: client keys (401, 403, the client's {@code Authorization} never
 * forwarded), the admin port, the JSON access log with {@code x-request-id}, and the drain of a graceful shutdown.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GatewayOperationsTest extends GatewayTestBase
{
    static TestUpstream stream;
    static TestUpstream slow;
    static TestUpstream hanging;

    @BeforeAll
    static void startUpstreams() throws Exception
    {
        stream = new TestUpstream(upstreams, TestUpstream.Mode.STREAM, 5, 2);
        slow = new TestUpstream(upstreams, TestUpstream.Mode.STREAM, 40, 20);
        hanging = new TestUpstream(upstreams, TestUpstream.Mode.HANG_MID_STREAM, 5, 2);
    }

    static String config()
    {
        return String.join("\n",
            "models:",
            "  - name: fast",
            "    backend_refs: [{name: fast-1, endpoint: 127.0.0.1:" + stream.port() + "}]",
            "  - name: slow",
            "    backend_refs: [{name: slow-1, endpoint: 127.0.0.1:" + slow.port() + "}]",
            "  - name: hanging",
            "    backend_refs: [{name: hanging-1, endpoint: 127.0.0.1:" + hanging.port() + "}]",
            "decisions:",
            "  - name: chat",
            "    modelRefs: [{model: fast}]",
            "  - name: other",
            "    modelRefs: [{model: fast}]",
            "  - name: slow",
            "    modelRefs: [{model: slow}]",
            "  - name: hanging",
            "    modelRefs: [{model: hanging}]",
            "");
    }

    Gateway start(final OperatingOptions operating, final long idleMs) throws Exception
    {
        gateway = Gateway.start(ConfigLoader.load("gateway.yaml", config(), null), null, null, null,
            GatewayOptions.defaults().withPort(0).withTimeouts(5_000, idleMs), operating, result -> { });
        return gateway;
    }

    HttpResponse<String> post(final String body, final String... headers) throws Exception
    {
        final HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() +
            "/v1/chat/completions")).timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0)
        {
            builder.headers(headers);
        }
        return http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(final int port, final String path) throws Exception
    {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    long inflight(final String model)
    {
        final MultiFactorEngine engine = gateway.engine();
        return engine.inflight(engine.modelId(model));
    }

    static String sha256Hex(final String text) throws Exception
    {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldRefuseRequestsWithoutAValidKeyAndLimitAKeyToItsDecisions() throws Exception
    {
        final ApiKeys keys = ApiKeys.parseFile(String.join("\n",
            "# the team's keys",
            "sk-open",
            "",
            "sha256:" + sha256Hex("sk-hashed") + " decisions=chat",
            "sk-limited decisions=other, chat"), "keys.txt");
        start(new OperatingOptions(keys, OperatingOptions.NO_ADMIN_PORT, null, null, 0, 0), 5_000);

        final HttpResponse<String> none = post(chat("chat", false));
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(new JsonObject(none.body()).getJsonObject("error").getString("code")).isEqualTo("invalid_api_key");
        final HttpResponse<String> wrong = post(chat("chat", false), "authorization", "Bearer sk-opem");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.body()).doesNotContain("sk-opem");
        assertThat(post(chat("chat", false), "authorization", "Basic sk-open").statusCode()).isEqualTo(401);

        assertThat(post(chat("chat", false), "authorization", "Bearer sk-open").statusCode()).isEqualTo(200);
        assertThat(post(chat("other", false), "authorization", "bearer sk-open").statusCode()).isEqualTo(200);
        assertThat(post(chat("chat", false), "authorization", "Bearer sk-hashed").statusCode()).isEqualTo(200);
        final HttpResponse<String> forbidden = post(chat("other", false), "authorization", "Bearer sk-hashed");
        assertThat(forbidden.statusCode()).isEqualTo(403);
        final JsonObject error = new JsonObject(forbidden.body()).getJsonObject("error");
        assertThat(error.getString("code")).isEqualTo("decision_not_allowed");
        assertThat(error.getString("message")).contains("other");
        assertThat(post(chat("other", false), "authorization", "Bearer sk-limited").statusCode()).isEqualTo(200);
        assertThat(post(chat("slow", false), "authorization", "Bearer sk-limited").statusCode()).isEqualTo(403);

        // Health and metrics stay open without a key; no key reaches a meter.
        assertThat(get(gateway.port(), "/healthz").statusCode()).isEqualTo(200);
        assertThat(get(gateway.port(), "/readyz").statusCode()).isEqualTo(200);
        final HttpResponse<String> metrics = get(gateway.port(), "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("mf_gateway_auth_refused_total{code=\"invalid_api_key\"} 3.0")
            .contains("mf_gateway_auth_refused_total{code=\"decision_not_allowed\"} 2.0")
            .doesNotContain("sk-open").doesNotContain("sk-hashed").doesNotContain("sk-limited");
        // The allowed-decision check, as /v1/models uses it.
        final MessageDigest sha256 = ApiKeys.sha256();
        final int limited = keys.find("Bearer sk-limited", sha256);
        assertThat(keys.allows(limited, "other")).isTrue();
        assertThat(keys.allows(limited, "slow")).isFalse();
        assertThat(keys.allows(keys.find("Bearer sk-open", sha256), "slow")).isTrue();
        assertThat(keys.id(limited)).isEqualTo(sha256Hex("sk-limited").substring(0, 8));
    }

    @Test
    void shouldNeverForwardTheClientsAuthorizationUpstreamWithOrWithoutKeys() throws Exception
    {
        final ApiKeys keys = ApiKeys.parseVariable("sk-one,sk-two decisions=chat|other", "MF_API_KEYS");
        start(new OperatingOptions(keys, OperatingOptions.NO_ADMIN_PORT, null, null, 0, 0), 5_000);
        stream.headers.clear();
        assertThat(post(chat("chat", true), "authorization", "Bearer sk-two").statusCode()).isEqualTo(200);
        gateway.close();
        start(OperatingOptions.defaults(), 5_000);
        assertThat(post(chat("chat", false), "authorization", "Bearer client-secret").statusCode()).isEqualTo(200);
        assertThat(stream.headers).hasSize(2);
        for (final io.vertx.core.MultiMap headers : stream.headers)
        {
            assertThat(headers.get("authorization")).isNull();
            assertThat(headers.get("x-request-id")).hasSize(32);
        }
    }

    @Test
    void shouldRefuseBadKeyLinesNamingTheFileAndLineButNotTheKey()
    {
        assertThatThrownBy(() -> ApiKeys.parseFile("ok-key\n\nsecret-key limit=a\n", "keys.txt"))
            .hasMessage("keys.txt:3: after the key, only decisions=a,b may follow");
        assertThatThrownBy(() -> ApiKeys.parseFile("sha256:abc\n", "keys.txt"))
            .hasMessage("keys.txt:1: sha256: takes 64 hex digits");
        assertThatThrownBy(() -> ApiKeys.parseFile("k decisions=a,,b\n", "keys.txt"))
            .hasMessageStartingWith("keys.txt:1: decisions= takes decision names");
        assertThatThrownBy(() -> ApiKeys.parseFile("# only a comment\n\n", "keys.txt"))
            .hasMessageContaining("keys.txt: no key");
        assertThatThrownBy(() -> ApiKeys.parseVariable("a,secret-b x", "MF_API_KEYS"))
            .hasMessage("MF_API_KEYS: entry 2: after the key, only decisions=a,b may follow");
        final ApiKeys lines = ApiKeys.parseVariable("k1 decisions=a,b\nk2\n", "MF_API_KEYS");
        assertThat(lines.size()).isEqualTo(2);
        assertThat(lines.allows(lines.find("Bearer k1", ApiKeys.sha256()), "b")).isTrue();
        assertThat(lines.allows(lines.find("Bearer k1", ApiKeys.sha256()), "c")).isFalse();
    }

    @Test
    void shouldServeMetricsAndHealthOnTheAdminPortOnly() throws Exception
    {
        final ApiKeys keys = ApiKeys.parseFile("sk-1\n", "keys.txt");
        start(new OperatingOptions(keys, 0, null, null, 0, 0), 5_000);
        assertThat(gateway.adminPort()).isPositive().isNotEqualTo(gateway.port());
        assertThat(get(gateway.adminPort(), "/metrics").body()).contains("# HELP mf_gateway_active");
        assertThat(get(gateway.adminPort(), "/healthz").statusCode()).isEqualTo(200);
        assertThat(get(gateway.adminPort(), "/readyz").statusCode()).isEqualTo(200);
        assertThat(get(gateway.adminPort(), "/v1/chat/completions").statusCode()).isEqualTo(404);
        // The main port no longer serves them: behind keys they are a 401, with a key a 404.
        assertThat(get(gateway.port(), "/metrics").statusCode()).isEqualTo(401);
        assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/healthz"))
            .header("authorization", "Bearer sk-1").build(), HttpResponse.BodyHandlers.ofString()).statusCode())
            .isEqualTo(404);
    }

    @Test
    void shouldWriteOneJsonLinePerRequestWithEveryKey() throws Exception
    {
        final Path logFile = dir.resolve("access.log");
        final ApiKeys keys = ApiKeys.parseFile("sk-log\n", "keys.txt");
        final AccessLog log = AccessLog.append(logFile);
        start(new OperatingOptions(keys, OperatingOptions.NO_ADMIN_PORT, null, log, 0, 0), 5_000);
        final HttpResponse<String> streamed = post(chat("chat", true), "authorization", "Bearer sk-log",
            "x-request-id", "req-42");
        assertThat(streamed.statusCode()).isEqualTo(200);
        assertThat(streamed.headers().firstValue("x-request-id")).hasValue("req-42");
        final HttpResponse<String> plain = post(chat("chat", false), "authorization", "Bearer sk-log");
        final String generated = plain.headers().firstValue("x-request-id").orElseThrow();
        assertThat(generated).matches("[0-9a-f]{32}");
        assertThat(post("{not json", "authorization", "Bearer sk-log").statusCode()).isEqualTo(400);
        final HttpResponse<String> unauthorized = post(chat("chat", false), "x-request-id", "no-key-1");
        assertThat(unauthorized.statusCode()).isEqualTo(401);
        assertThat(unauthorized.headers().firstValue("x-request-id")).hasValue("no-key-1");
        poll("four lines written", () -> log.written() == 4);
        gateway.close();
        gateway = null;

        final List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
        assertThat(lines).hasSize(4);
        final List<String> keysInOrder = List.of("time", "request_id", "decision", "model", "backend", "status",
            "attempts", "ttft_ms", "tpot_ms", "prompt_tokens", "completion_tokens", "outcome", "key_id");
        for (final String line : lines)
        {
            final JsonObject json = new JsonObject(line);
            assertThat(json.fieldNames()).containsExactlyInAnyOrderElementsOf(keysInOrder);
            assertThat(java.time.Instant.parse(json.getString("time"))).isNotNull();
        }
        for (final String line : lines.subList(0, 3))
        {
            assertThat(new JsonObject(line).getString("key_id")).isEqualTo(sha256Hex("sk-log").substring(0, 8));
        }
        final JsonObject noKey = new JsonObject(lines.get(3));
        assertThat(noKey.getString("request_id")).isEqualTo("no-key-1");
        assertThat(noKey.getInteger("status")).isEqualTo(401);
        assertThat(noKey.getValue("key_id")).isNull();
        assertThat(noKey.getValue("decision")).isNull();
        final JsonObject first = new JsonObject(lines.get(0));
        assertThat(first.getString("request_id")).isEqualTo("req-42");
        assertThat(first.getString("decision")).isEqualTo("chat");
        assertThat(first.getString("model")).isEqualTo("fast");
        assertThat(first.getString("backend")).isEqualTo("fast-1");
        assertThat(first.getInteger("status")).isEqualTo(200);
        assertThat(first.getInteger("attempts")).isEqualTo(1);
        assertThat(first.getDouble("ttft_ms")).isNotNull().isGreaterThanOrEqualTo(0.0);
        assertThat(first.getDouble("tpot_ms")).isNotNull().isGreaterThanOrEqualTo(0.0);
        assertThat(first.getLong("prompt_tokens")).isEqualTo(3L);
        assertThat(first.getLong("completion_tokens")).isEqualTo(5L);
        assertThat(first.getString("outcome")).isEqualTo("scored");
        final JsonObject second = new JsonObject(lines.get(1));
        assertThat(second.getString("request_id")).isEqualTo(generated);
        assertThat(second.getInteger("status")).isEqualTo(200);
        final JsonObject refused = new JsonObject(lines.get(2));
        assertThat(refused.getInteger("status")).isEqualTo(400);
        assertThat(refused.getInteger("attempts")).isZero();
        assertThat(refused.getValue("model")).isNull();
        assertThat(refused.getValue("outcome")).isNull();
        assertThat(log.dropped()).isZero();
    }

    @Test
    void shouldDrainLettingOpenStreamsFinishThenRefuseNewConnections() throws Exception
    {
        start(new OperatingOptions(null, OperatingOptions.NO_ADMIN_PORT, null, null, 400, 10_000), 5_000);
        final int port = gateway.port();
        final CompletableFuture<HttpResponse<String>> open = http.sendAsync(HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + port + "/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString(
            chat("slow", true))).build(), HttpResponse.BodyHandlers.ofString());
        poll("the stream is open", () -> inflight("slow") == 1);
        final Gateway draining = gateway;
        final Thread drain = new Thread(draining::drain);
        drain.start();
        poll("readyz answers 503", () -> status(port, "/readyz") == 503);
        // Within the drain delay a new connection is still accepted (load balancers have not noticed yet).
        assertThat(status(port, "/healthz")).isEqualTo(200);
        drain.join(20_000);
        assertThat(drain.isAlive()).isFalse();
        final HttpResponse<String> finished = open.get(1, TimeUnit.SECONDS);
        assertThat(finished.statusCode()).isEqualTo(200);
        assertThat(finished.body()).contains("tok39").endsWith("data: [DONE]\n\n");
        assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + port + "/healthz")).build(), HttpResponse.BodyHandlers.ofString()))
            .isInstanceOf(ConnectException.class);
        gateway = null;
    }

    @Test
    void shouldCutStreamsStillOpenAtTheDrainTimeoutAndEndTheirLeases() throws Exception
    {
        start(new OperatingOptions(null, OperatingOptions.NO_ADMIN_PORT, null, null, 0, 300), 60_000);
        final int closedBefore = hanging.closedEarly.get();
        final CompletableFuture<HttpResponse<String>> open = http.sendAsync(HttpRequest.newBuilder(URI.create(
            "http://127.0.0.1:" + gateway.port() + "/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString(
            chat("hanging", true))).build(), HttpResponse.BodyHandlers.ofString());
        poll("the stream is open", () -> inflight("hanging") == 1);
        final long began = System.nanoTime();
        gateway.drain();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began)).isLessThan(10_000);
        // The gateway reset its upstream request: it does so only once the lease was ended by the cut.
        poll("the backend's stream was closed by the gateway", () -> hanging.closedEarly.get() > closedBefore);
        assertThatThrownBy(() -> open.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(java.io.IOException.class);
        gateway = null;
    }

    @Test
    void shouldCutAClientThatNeverReadsAfterTheIdleTimeoutAndEndItsLease() throws Exception
    {
        try (TestUpstream flood = new TestUpstream(upstreams, TestUpstream.Mode.FLOOD, 0, 0))
        {
            final String yaml = config().replace("decisions:", String.join("\n",
                "  - name: flood",
                "    backend_refs: [{endpoint: 127.0.0.1:" + flood.port() + "}]",
                "decisions:",
                "  - name: flood",
                "    modelRefs: [{model: flood}]"));
            gateway = Gateway.start(ConfigLoader.load("gateway.yaml", yaml, null), null, null, null,
                GatewayOptions.defaults().withPort(0).withTimeouts(5_000, 500), OperatingOptions.defaults(), r -> { });
            final String body = chat("flood", true);
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", gateway.port()))
            {
                socket.setReceiveBufferSize(4096);
                socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" +
                    "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.UTF_8));
                poll("the stream is open", () -> inflight("flood") == 1);
                // The client reads nothing: the gateway pauses the backend, then cuts after 500 ms of silence.
                poll("the lease ended", () -> inflight("flood") == 0);
                assertThat(flood.floodWritten.get()).isLessThan(TestUpstream.FLOOD_BYTES / 2);
            }
        }
    }

    int status(final int port, final String path)
    {
        try
        {
            // A client of its own: a new connection each time.
            return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode();
        }
        catch (final java.io.IOException ex)
        {
            return -1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
