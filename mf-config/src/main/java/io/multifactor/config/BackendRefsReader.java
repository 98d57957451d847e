package io.multifactor.config;

import io.multifactor.config.model.BackendRef;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.Problems;
import io.multifactor.config.yaml.Excerpt;
import io.multifactor.config.yaml.YamlNode;
import io.multifactor.config.yaml.YamlSequence;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads a model's {@code provider_model_id} and {@code backend_refs}, the same keys in this library's format and in
 * vLLM Semantic Router's {@code providers.models[]} (where a backend's other keys are vSR's or Envoy's, and ignored).
 * <p>
 * This class is stateless and threadsafe.
 */
final class BackendRefsReader
{
    /** The keys of one backend this library reads. */
    static final List<String> BACKEND_KEYS = List.of("name", "endpoint", "base_url", "weight", "protocol", "api_key_env");

    private BackendRefsReader()
    {
    }

    /**
     * @param model the model's mapping.
     * @return its {@code provider_model_id}, or {@code null} when absent (the name is sent) or after a reported problem.
     */
    static String providerModelId(final MappingReader model)
    {
        return model.optionalString("provider_model_id", null);
    }

    /**
     * @param model the model's mapping.
     * @param ignoreOthers whether a backend's keys outside {@link #BACKEND_KEYS} are ignored (vSR) or refused (ours).
     * @return the backends in file order; empty when the key is absent; meaningful only when no error was reported.
     */
    static List<BackendRef> backendRefs(final MappingReader model, final boolean ignoreOthers)
    {
        final List<BackendRef> backends = new ArrayList<>();
        final YamlSequence list = model.optionalSequence("backend_refs");
        if (list == null)
        {
            return backends;
        }
        final Problems problems = model.problems();
        for (int i = 0; i < list.items().size(); i++)
        {
            final String path = model.path("backend_refs") + '[' + i + ']';
            final YamlNode node = list.items().get(i);
            final MappingReader backend = ignoreOthers
                ? MappingReader.openIgnoringOthers(node, path, problems, BACKEND_KEYS)
                : MappingReader.open(node, path, problems, BACKEND_KEYS);
            final BackendRef ref = backend(backend, node, path, problems);
            if (ref != null)
            {
                backends.add(ref);
            }
        }
        return backends;
    }

    private static BackendRef backend(
        final MappingReader backend, final YamlNode node, final String path, final Problems problems)
    {
        final String label = backend.optionalString("name", null);
        double weight = backend.optionalNumber("weight", 1.0, true);
        if (weight == 0.0)
        {
            problems.error(backend.value("weight"), backend.path("weight"), "must be > 0, got 0");
            weight = Double.NaN;
        }
        final String apiKeyEnv = backend.optionalString("api_key_env", null);
        final String protocol = backend.optionalString("protocol", null);
        if (protocol != null && !"http".equals(protocol) && !"https".equals(protocol))
        {
            problems.error(backend.value("protocol"), backend.path("protocol"),
                "unknown protocol \"" + Excerpt.value(protocol) + "\": expected http or https");
        }
        final boolean hasEndpoint = backend.has("endpoint");
        final boolean hasUrl = backend.has("base_url");
        if (hasEndpoint == hasUrl)
        {
            problems.error(node, path, hasEndpoint
                ? "set endpoint or base_url, not both"
                : "missing required key \"endpoint\" (host:port) or \"base_url\" (a URL)");
            return null;
        }
        if (hasEndpoint)
        {
            final String endpoint = backend.optionalString("endpoint", null);
            return endpoint == null ? null : endpoint(backend, endpoint, label, "https".equals(protocol), weight, apiKeyEnv);
        }
        final String url = backend.optionalString("base_url", null);
        return url == null ? null : baseUrl(backend, url, label, protocol, weight, apiKeyEnv);
    }

    private static BackendRef endpoint(
        final MappingReader backend, final String endpoint, final String label, final boolean https, final double weight,
        final String apiKeyEnv)
    {
        final YamlNode at = backend.value("endpoint");
        final String path = backend.path("endpoint");
        if (endpoint.contains("://") || endpoint.contains("/"))
        {
            backend.problems().error(at, path, "expected host:port, got \"" + Excerpt.value(endpoint) +
                "\" (a URL goes in base_url)");
            return null;
        }
        final int colon = endpoint.lastIndexOf(':');
        String host = colon < 0 ? "" : endpoint.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        else if (host.indexOf(':') >= 0)
        {
            host = "";
        }
        final int port = colon < 0 ? -1 : port(endpoint.substring(colon + 1));
        if (host.isEmpty() || port < 0)
        {
            backend.problems().error(at, path, "expected host:port with a port 1..65535, got \"" +
                Excerpt.value(endpoint) + '"');
            return null;
        }
        return new BackendRef(label == null ? endpoint : label, https, host, port, BackendRef.ENDPOINT_BASE_PATH, weight,
            apiKeyEnv);
    }

    private static BackendRef baseUrl(
        final MappingReader backend, final String url, final String label, final String protocol, final double weight,
        final String apiKeyEnv)
    {
        final YamlNode at = backend.value("base_url");
        final String path = backend.path("base_url");
        final URI uri;
        try
        {
            uri = new URI(url);
        }
        catch (final URISyntaxException ex)
        {
            backend.problems().error(at, path, "not a URL: \"" + Excerpt.value(url) + '"');
            return null;
        }
        final String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!"http".equals(scheme) && !"https".equals(scheme) || uri.getHost() == null || uri.getQuery() != null ||
            uri.getFragment() != null || uri.getUserInfo() != null)
        {
            backend.problems().error(at, path, "expected an http:// or https:// URL with a host, no query, no user, got \"" +
                Excerpt.value(url) + '"');
            return null;
        }
        final boolean https = "https".equals(scheme);
        if (protocol != null && !protocol.equals(scheme) && ("http".equals(protocol) || "https".equals(protocol)))
        {
            backend.problems().error(backend.value("protocol"), backend.path("protocol"),
                "protocol " + protocol + " contradicts base_url's scheme " + scheme + " (protocol applies to endpoint)");
        }
        String host = uri.getHost();
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        final int port = uri.getPort() < 0 ? (https ? 443 : 80) : uri.getPort();
        String basePath = uri.getRawPath() == null ? "" : uri.getRawPath();
        while (basePath.endsWith("/"))
        {
            basePath = basePath.substring(0, basePath.length() - 1);
        }
        return new BackendRef(label == null ? url : label, https, host, port, basePath, weight, apiKeyEnv);
    }

    /** @return the port 1..65535, or -1 when the text is not one. */
    private static int port(final String text)
    {
        if (text.isEmpty() || text.length() > 5)
        {
            return -1;
        }
        int port = 0;
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c < '0' || c > '9')
            {
                return -1;
            }
            port = port * 10 + (c - '0');
        }
        return port >= 1 && port <= 65535 ? port : -1;
    }
}
