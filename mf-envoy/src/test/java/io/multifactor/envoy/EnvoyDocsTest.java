package io.multifactor.envoy;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.config.bootstrap.v3.Bootstrap;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor;
import io.envoyproxy.envoy.extensions.filters.http.ext_proc.v3.ProcessingMode;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.extensions.upstreams.http.v3.HttpProtocolOptions;
import io.multifactor.serving.ServingHeaders;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Envoy configurations of {@code docs/envoy.md} are real Envoy bootstraps: each YAML block with
 * {@code static_resources} parses into Envoy's own {@link Bootstrap} proto (unknown fields refused), its ext_proc filter
 * has the processing modes the service needs, and the names it routes on are the ones the service sets.
 */
class EnvoyDocsTest
{
    private static final Path PAGE = Path.of("..", "docs", "envoy.md");

    private static List<String> bootstraps() throws IOException
    {
        return yamlBlocks("static_resources:");
    }

    private static List<String> yamlBlocks(final String startingWith) throws IOException
    {
        final List<String> blocks = new ArrayList<>();
        StringBuilder block = null;
        for (final String line : Files.readAllLines(PAGE, StandardCharsets.UTF_8))
        {
            if (block == null && line.strip().equals("```yaml"))
            {
                block = new StringBuilder();
            }
            else if (block != null && line.strip().equals("```"))
            {
                if (block.toString().startsWith(startingWith))
                {
                    blocks.add(block.toString());
                }
                block = null;
            }
            else if (block != null)
            {
                block.append(line).append('\n');
            }
        }
        return blocks;
    }

    private static Bootstrap parse(final String yaml) throws InvalidProtocolBufferException
    {
        final Bootstrap.Builder bootstrap = Bootstrap.newBuilder();
        merge(yaml, bootstrap);
        return bootstrap.build();
    }

    private static void merge(final String yaml, final com.google.protobuf.Message.Builder into)
        throws InvalidProtocolBufferException
    {
        final Object tree = new Yaml().load(yaml);
        final StringBuilder json = new StringBuilder();
        appendJson(json, tree);
        final JsonFormat.TypeRegistry types = JsonFormat.TypeRegistry.newBuilder()
            .add(HttpConnectionManager.getDescriptor())
            .add(ExternalProcessor.getDescriptor())
            .add(Router.getDescriptor())
            .add(HttpProtocolOptions.getDescriptor())
            .build();
        JsonFormat.parser().usingTypeRegistry(types).merge(json.toString(), into);
    }

    private static void appendJson(final StringBuilder json, final Object value)
    {
        if (value instanceof Map<?, ?> map)
        {
            json.append('{');
            String separator = "";
            for (final Map.Entry<?, ?> entry : map.entrySet())
            {
                json.append(separator);
                appendJson(json, String.valueOf(entry.getKey()));
                json.append(':');
                appendJson(json, entry.getValue());
                separator = ",";
            }
            json.append('}');
        }
        else if (value instanceof List<?> list)
        {
            json.append('[');
            for (int i = 0; i < list.size(); i++)
            {
                json.append(i == 0 ? "" : ",");
                appendJson(json, list.get(i));
            }
            json.append(']');
        }
        else if (value instanceof String text)
        {
            json.append('"').append(text.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        else
        {
            json.append(value);
        }
    }

    private static HttpConnectionManager connectionManager(final Bootstrap bootstrap)
        throws InvalidProtocolBufferException
    {
        final Any config = bootstrap.getStaticResources().getListeners(0).getFilterChains(0).getFilters(0)
            .getTypedConfig();
        return config.unpack(HttpConnectionManager.class);
    }

    private static Cluster cluster(final Bootstrap bootstrap, final String name)
    {
        return bootstrap.getStaticResources().getClustersList().stream().filter(c -> c.getName().equals(name))
            .findFirst().orElseThrow(() -> new AssertionError("no cluster " + name));
    }

    @Test
    void shouldHoldTwoEnvoyBootstrapsThatParseIntoEnvoysOwnProtos() throws Exception
    {
        final List<String> blocks = bootstraps();
        assertThat(blocks).hasSize(2);
        for (final String block : blocks)
        {
            final Bootstrap bootstrap = parse(block);
            final HttpConnectionManager manager = connectionManager(bootstrap);
            final HttpFilter first = manager.getHttpFilters(0);
            assertThat(first.getName()).isEqualTo("envoy.filters.http.ext_proc");
            final ExternalProcessor extProc = first.getTypedConfig().unpack(ExternalProcessor.class);
            final ProcessingMode mode = extProc.getProcessingMode();
            assertThat(mode.getRequestHeaderMode()).isEqualTo(ProcessingMode.HeaderSendMode.SEND);
            assertThat(mode.getRequestBodyMode()).isEqualTo(ProcessingMode.BodySendMode.BUFFERED);
            assertThat(mode.getResponseHeaderMode()).isEqualTo(ProcessingMode.HeaderSendMode.SEND);
            assertThat(mode.getResponseBodyMode()).isEqualTo(ProcessingMode.BodySendMode.STREAMED);
            assertThat(extProc.getGrpcService().getEnvoyGrpc().getClusterName()).isEqualTo("multi_factor");
            assertThat(manager.getHttpFilters(manager.getHttpFiltersCount() - 1).getTypedConfig().is(Router.class))
                .isTrue();
            final Cluster service = cluster(bootstrap, "multi_factor");
            assertThat(service.getTypedExtensionProtocolOptionsOrThrow("envoy.extensions.upstreams.http.v3.HttpProtocolOptions")
                .unpack(HttpProtocolOptions.class).getExplicitHttpConfig().hasHttp2ProtocolOptions()).isTrue();
            assertThat(service.getLoadAssignment().getEndpoints(0).getLbEndpoints(0).getEndpoint().getAddress()
                .getSocketAddress().getPortValue()).isEqualTo(50051);
        }
    }

    @Test
    void shouldRouteOnTheHeadersTheServiceSets() throws Exception
    {
        final List<String> blocks = bootstraps();
        final HttpConnectionManager vsr = connectionManager(parse(blocks.get(0)));
        assertThat(vsr.getRouteConfig().getVirtualHosts(0).getRoutesList())
            .allSatisfy(route -> assertThat(route.getMatch().getHeaders(0).getName())
                .isEqualTo(ServingHeaders.SELECTED_MODEL));

        final Cluster picked = cluster(parse(blocks.get(1)), "picked_endpoint");
        assertThat(picked.getType()).isEqualTo(Cluster.DiscoveryType.ORIGINAL_DST);
        assertThat(picked.getLbPolicy()).isEqualTo(Cluster.LbPolicy.CLUSTER_PROVIDED);
        assertThat(picked.getOriginalDstLbConfig().getUseHttpHeader()).isTrue();
        assertThat(picked.getOriginalDstLbConfig().getHttpHeaderName()).isEqualTo(ServingHeaders.DESTINATION_ENDPOINT);
        assertThat(Files.readString(PAGE)).contains("metadata_key: {key: " + ExtProcResponses.LB_NAMESPACE +
            ", path: [{key: " + ServingHeaders.DESTINATION_ENDPOINT + "}]}");
    }

    @Test
    void shouldHashASessionsHeaderOntoOneRouterReplica() throws Exception
    {
        final List<String> blocks = yamlBlocks("# Sessions:");
        assertThat(blocks).hasSize(1);
        final Bootstrap bootstrap = parse(blocks.get(0));
        final io.envoyproxy.envoy.config.route.v3.RouteAction route = connectionManager(bootstrap).getRouteConfig()
            .getVirtualHosts(0).getRoutes(0).getRoute();
        assertThat(route.getHashPolicy(0).getHeader().getHeaderName()).isEqualTo("x-session-id");
        assertThat(route.getHashPolicy(1).getHeader().getHeaderName()).isEqualTo("x-session-token");
        assertThat(cluster(bootstrap, route.getCluster()).getLbPolicy()).isEqualTo(Cluster.LbPolicy.RING_HASH);
    }

    @Test
    void shouldReachTheServiceOnAUnixDomainSocketThroughAStaticPipeCluster() throws Exception
    {
        final List<String> blocks = yamlBlocks("clusters:");
        assertThat(blocks).hasSize(1);
        final Bootstrap.StaticResources.Builder resources = Bootstrap.StaticResources.newBuilder();
        merge(blocks.get(0), resources);
        final Cluster service = resources.getClusters(0);
        assertThat(service.getName()).isEqualTo("multi_factor");
        assertThat(service.getType()).isEqualTo(Cluster.DiscoveryType.STATIC);
        assertThat(service.getTypedExtensionProtocolOptionsOrThrow("envoy.extensions.upstreams.http.v3.HttpProtocolOptions")
            .unpack(HttpProtocolOptions.class).getExplicitHttpConfig().hasHttp2ProtocolOptions()).isTrue();
        final String path = service.getLoadAssignment().getEndpoints(0).getLbEndpoints(0).getEndpoint().getAddress()
            .getPipe().getPath();
        assertThat(path).isEqualTo("/run/mf/ext_proc.sock");
        assertThat(Files.readString(PAGE)).contains("bin/mf envoy --unix " + path);
    }
}
