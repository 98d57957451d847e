package io.multifactor.gateway;

import io.multifactor.config.ConfigLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * HTTPS with certificates made in the test by the JDK's {@code keytool}: HTTP/1.1 and HTTP/2 negotiated by ALPN with
 * the JDK's own client, a changed certificate served to the connections that follow, a bad one refused while the
 * running one stays.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GatewayTlsTest
{
    @TempDir
    Path dir;

    Gateway gateway;

    @AfterEach
    void stop()
    {
        if (gateway != null)
        {
            gateway.close();
        }
    }

    /** A self-signed certificate for 127.0.0.1, as PEM files {@code NAME.crt} and {@code NAME.key}. */
    static KeyStore.PrivateKeyEntry selfSigned(final Path dir, final String name) throws Exception
    {
        final Path store = dir.resolve(name + ".p12");
        final Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
            "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
            "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-keystore", store.toString(),
            "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit")
            .redirectErrorStream(true).start();
        final String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor()).as(output).isZero();
        final KeyStore keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store))
        {
            keyStore.load(in, "changeit".toCharArray());
        }
        final PrivateKey key = (PrivateKey)keyStore.getKey(name, "changeit".toCharArray());
        final Certificate cert = keyStore.getCertificate(name);
        Files.writeString(dir.resolve(name + ".crt"), pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(dir.resolve(name + ".key"), pem("PRIVATE KEY", key.getEncoded()));
        return new KeyStore.PrivateKeyEntry(key, new Certificate[] {cert});
    }

    static String pem(final String type, final byte[] der)
    {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    static HttpClient client(final HttpClient.Version version, final Certificate... trusted) throws Exception
    {
        final KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        for (int i = 0; i < trusted.length; i++)
        {
            trust.setCertificateEntry("c" + i, trusted[i]);
        }
        final TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        final SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return HttpClient.newBuilder().version(version).sslContext(context).connectTimeout(Duration.ofSeconds(5))
            .build();
    }

    HttpResponse<String> get(final HttpClient client, final String path) throws Exception
    {
        return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + gateway.port() + path))
            .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static String servedName(final HttpResponse<?> response) throws Exception
    {
        final X509Certificate cert = (X509Certificate)response.sslSession().orElseThrow().getPeerCertificates()[0];
        return cert.getSubjectX500Principal().getName();
    }

    @Test
    void shouldNegotiateHttp2AndHttp11ByAlpnAndFollowAChangedCertificate() throws Exception
    {
        final Certificate first = selfSigned(dir, "first").getCertificate();
        final Path cert = dir.resolve("first.crt");
        final Path key = dir.resolve("first.key");
        final TlsFiles tls = TlsFiles.load(cert, key);
        gateway = Gateway.start(ConfigLoader.load("g.yaml", "models:\n  - name: a\ndecisions:\n  - name: d\n" +
            "    modelRefs: [{model: a}]\n", null), null, null, null, GatewayOptions.defaults().withPort(0),
            new OperatingOptions(null, OperatingOptions.NO_ADMIN_PORT, tls, null, 0, 0), r -> { });

        final HttpResponse<String> h2 = get(client(HttpClient.Version.HTTP_2, first), "/healthz");
        assertThat(h2.statusCode()).isEqualTo(200);
        assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(servedName(h2)).isEqualTo("CN=first");
        final HttpResponse<String> h1 = get(client(HttpClient.Version.HTTP_1_1, first), "/healthz");
        assertThat(h1.statusCode()).isEqualTo(200);
        assertThat(h1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        // A chat request over HTTP/2 goes through the same flow (here: its model has no backend, a 502).
        final HttpResponse<String> chat = client(HttpClient.Version.HTTP_2, first).send(HttpRequest.newBuilder(
            URI.create("https://127.0.0.1:" + gateway.port() + "/v1/chat/completions")).POST(
            HttpRequest.BodyPublishers.ofString("{\"model\":\"d\",\"messages\":[]}")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(chat.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(chat.statusCode()).isEqualTo(502);

        // A bad file in place of the key: refused, the running certificate stays.
        Files.writeString(key, "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (tls.lastProblem() == null && System.nanoTime() < deadline)
        {
            Thread.sleep(50);
        }
        assertThat(tls.lastProblem()).contains("--tls-key " + key).contains("the running certificate stays");
        assertThat(servedName(get(client(HttpClient.Version.HTTP_1_1, first), "/healthz"))).isEqualTo("CN=first");

        // A new certificate and key: new connections get it.
        final Certificate second = selfSigned(dir, "second").getCertificate();
        Files.copy(dir.resolve("second.crt"), cert, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(dir.resolve("second.key"), key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        String served = "CN=first";
        while (!served.equals("CN=second") && System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(20))
        {
            Thread.sleep(50);
            served = servedName(get(client(HttpClient.Version.HTTP_2, first, second), "/healthz"));
        }
        assertThat(served).isEqualTo("CN=second");
        assertThat(tls.reloads()).isEqualTo(1);
        assertThat(tls.lastProblem()).isNull();
    }

    @Test
    void shouldRefuseFilesThatAreNotPemNamingTheOption() throws Exception
    {
        Files.writeString(dir.resolve("bad.crt"), "hello");
        Files.writeString(dir.resolve("bad.key"), "world");
        assertThatThrownBy(() -> TlsFiles.load(dir.resolve("bad.crt"), dir.resolve("bad.key")))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("--tls-cert " + dir.resolve("bad.crt"));
        assertThatThrownBy(() -> TlsFiles.load(dir.resolve("missing.crt"), dir.resolve("bad.key")))
            .hasMessageContaining("--tls-cert " + dir.resolve("missing.crt") + ": cannot be read");
    }
}
