package io.multifactor.fakes;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The fake model servers of one backends profile, started together on loopback (what {@code bin/mf backends} runs, and
 * a JUnit fixture: start it with ports 0, read {@link #port(String)}, close it).
 * <p>
 * Server {@code i} of the profile draws from seed {@code profile.seed() * 31 + i}, so a run is reproducible.
 * <p>
 * This class is threadsafe: {@link #start} and {@link #close} block until done and may be called from any thread; the
 * servers themselves run on Vert.x event loops.
 */
public final class FakeBackends implements AutoCloseable
{
    private static final long TIMEOUT_S = 30;

    private final Vertx vertx;
    private final boolean ownsVertx;
    private final Map<String, FakeModelServer> servers;

    private FakeBackends(final Vertx vertx, final boolean ownsVertx, final Map<String, FakeModelServer> servers)
    {
        this.vertx = vertx;
        this.ownsVertx = ownsVertx;
        this.servers = servers;
    }

    /**
     * Starts every server of {@code profile} on its own Vert.x instance.
     *
     * @param profile the servers to start.
     * @return the started servers.
     * @throws IllegalStateException when a server cannot listen (its port is taken, ...): the others are stopped.
     */
    public static FakeBackends start(final BackendsProfile profile)
    {
        // The native epoll transport where it loads: a measuring instrument should take as little CPU as it can.
        return start(Vertx.vertx(new VertxOptions().setPreferNativeTransport(true)), true, profile);
    }

    /**
     * Starts every server of {@code profile} on a caller's Vert.x instance (not closed by {@link #close}).
     *
     * @param vertx the instance.
     * @param profile the servers to start.
     * @return the started servers.
     * @throws IllegalStateException when a server cannot listen: the others are stopped.
     */
    public static FakeBackends start(final Vertx vertx, final BackendsProfile profile)
    {
        return start(vertx, false, profile);
    }

    private static FakeBackends start(final Vertx vertx, final boolean ownsVertx, final BackendsProfile profile)
    {
        final Map<String, FakeModelServer> servers = new LinkedHashMap<>();
        final List<Future<Integer>> bound = new ArrayList<>();
        final List<FakeModelProfile> models = profile.models();
        for (int i = 0; i < models.size(); i++)
        {
            final FakeModelServer server = new FakeModelServer(vertx, models.get(i), profile.seed() * 31 + i);
            servers.put(models.get(i).name(), server);
            bound.add(server.start());
        }
        final FakeBackends backends = new FakeBackends(vertx, ownsVertx, servers);
        try
        {
            Future.all(bound).await(TIMEOUT_S, TimeUnit.SECONDS);
        }
        catch (final Exception ex)
        {
            backends.close();
            final FakeModelServer failed = servers.values().stream().filter(s -> s.port() < 0).findFirst().orElse(null);
            throw new IllegalStateException("fake model server " + (failed == null ? "" : '"' +
                failed.profile().name() + "\" on port " + failed.profile().port() + ' ') + "could not listen: " +
                (ex.getMessage() == null ? ex.toString() : ex.getMessage()), ex);
        }
        return backends;
    }

    /** @return the servers by model name, in profile order. */
    public Map<String, FakeModelServer> servers()
    {
        return Map.copyOf(servers);
    }

    /**
     * @param model a model of the profile.
     * @return its server.
     * @throws IllegalArgumentException for a model the profile does not have.
     */
    public FakeModelServer server(final String model)
    {
        final FakeModelServer server = servers.get(model);
        if (server == null)
        {
            throw new IllegalArgumentException("no fake server for model " + model + "; have " + servers.keySet());
        }
        return server;
    }

    /**
     * @param model a model of the profile.
     * @return the port its server listens on.
     */
    public int port(final String model)
    {
        return server(model).port();
    }

    /**
     * @param model a model of the profile.
     * @return its base URL, such as {@code http://127.0.0.1:18001/v1}.
     */
    public String baseUrl(final String model)
    {
        return "http://127.0.0.1:" + port(model) + "/v1";
    }

    /** @return the model names, in profile order. */
    public List<String> models()
    {
        return List.copyOf(servers.keySet());
    }

    /** Stops every server (and the Vert.x instance when this object started it); waits up to 30 s. */
    @Override
    public void close()
    {
        final List<Future<Void>> closed = new ArrayList<>();
        for (final FakeModelServer server : servers.values())
        {
            closed.add(server.close());
        }
        try
        {
            Future.join(closed).await(TIMEOUT_S, TimeUnit.SECONDS);
            if (ownsVertx)
            {
                vertx.close().await(TIMEOUT_S, TimeUnit.SECONDS);
            }
        }
        catch (final TimeoutException ex)
        {
            throw new IllegalStateException("fake model servers did not stop within " + TIMEOUT_S + " s", ex);
        }
    }
}
