package io.multifactor.fakes;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;

/**
 * A small fleet for the tests of a routing integration (the Spring AI and LangChain4j chat models): three fake model
 * servers on loopback ({@code fast}, {@code other}, and {@code degrading}, 300 ms per token for its first 10 s), a
 * port where nothing listens ({@code dead}), and the router configuration over them ({@link #routerYaml()}): decisions
 * {@code chat} (fast only), {@code dead-first} (the dead model ranked first), {@code latency} (degrading against
 * other, by latency), {@code sticky} (fast and other tied, drawn at random, with a session block) and {@code guarded}
 * (fast, at most 2 in flight, sheddable calls shed from the first).
 * <p>
 * This class is threadsafe: its servers are; {@link #close()} stops them once.
 */
public final class RoutingFleet implements AutoCloseable
{
    private final FakeBackends backends;
    private final int deadPort;

    private RoutingFleet(final FakeBackends backends, final int deadPort)
    {
        this.backends = backends;
        this.deadPort = deadPort;
    }

    /**
     * @param seed the fake servers' seed.
     * @return the fleet, listening.
     * @throws IOException when a server cannot listen.
     */
    public static RoutingFleet start(final long seed) throws IOException
    {
        final FakeBackends backends = FakeBackends.start(new BackendsProfile(seed, List.of(
            FakeModelProfile.steady("fast", 5, 1, 256, 8),
            FakeModelProfile.steady("other", 5, 1, 256, 8),
            FakeModelProfile.steady("degrading", 5, 1, 256, 8)
                .withDegraded(List.of(new TimeWindow(0, 10_000, 300, 300, 0, 1.0))))));
        try (ServerSocket socket = new ServerSocket(0))
        {
            return new RoutingFleet(backends, socket.getLocalPort());
        }
        catch (final IOException | RuntimeException ex)
        {
            backends.close();
            throw ex;
        }
    }

    /**
     * @param model {@code fast}, {@code other}, {@code degrading} or {@code dead}.
     * @return its port on 127.0.0.1 (nothing listens on the dead one's).
     */
    public int port(final String model)
    {
        return "dead".equals(model) ? deadPort : backends.port(model);
    }

    /** @return the router configuration over the fleet, in the project's format. */
    public String routerYaml()
    {
        return String.join("\n",
            "models:",
            "  - name: fast",
            "    quality_score: 0.5",
            "    provider_model_id: acme/fast-7b",
            "    backend_refs: [{endpoint: 127.0.0.1:" + port("fast") + "}]",
            "  - name: other",
            "    quality_score: 0.5",
            "    backend_refs: [{endpoint: 127.0.0.1:" + port("other") + "}]",
            "  - name: degrading",
            "    quality_score: 0.5",
            "    backend_refs: [{endpoint: 127.0.0.1:" + port("degrading") + "}]",
            "  - name: dead",
            "    quality_score: 0.9",
            "    backend_refs: [{endpoint: 127.0.0.1:" + deadPort + "}]",
            "decisions:",
            "  - name: chat",
            "    modelRefs: [{model: fast}]",
            "  - name: dead-first",
            "    modelRefs: [{model: dead}, {model: fast}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}",
            "  - name: latency",
            "    modelRefs: [{model: degrading}, {model: other}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {latency: 0.9, load: 0.1}, latency_percentile: 50}}",
            "  - name: sticky",
            "    modelRefs: [{model: fast}, {model: other}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}, tie_break: random,",
            "      session: {min_turns_before_switch: 1}}}",
            "  - name: guarded",
            "    modelRefs: [{model: fast}]",
            "    algorithm: {type: multi_factor, multi_factor: {slo: {max_inflight: 2}, admission: {sheddable_above: 0.5}}}",
            "signals:",
            "  latency_refresh: 20ms",
            "");
    }

    @Override
    public void close()
    {
        backends.close();
    }
}
