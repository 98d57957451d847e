package io.multifactor.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.StaticCredentialsProvider;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.agrona.concurrent.EpochClock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The fleet exchange's one connection to Redis (Lettuce) and its reconnection. Commands fail fast: the connection
 * rejects commands while disconnected, its request queue is bounded, a command times out after half a period, and
 * Lettuce neither buffers nor reconnects by itself; a lost connection is reopened at once, then with an exponential
 * backoff (100 ms doubling to 5 s) while it keeps failing. Scripts are sent by digest. The password (from the URL or
 * {@link RedisFleetSettings#PASSWORD_ENV}) never appears in what {@link #describe} returns.
 * <p>
 * This class is used by one fleet agent thread at a time; {@link #close()} may come from another thread once the agent
 * stopped.
 */
final class RedisConnection
{
    private final EpochClock clock;
    private final Duration commandTimeout;
    private final String password;
    private final RedisClient client;
    private StatefulRedisConnection<byte[], byte[]> connection;
    private long nextConnectMs;
    private long connectBackoffMs;

    RedisConnection(final RedisFleetSettings settings, final EpochClock clock)
    {
        this.clock = clock;
        final long periodMs = settings.period().toMillis();
        commandTimeout = Duration.ofMillis(Math.max(10L, periodMs / 2));
        final Duration connectTimeout = Duration.ofMillis(Math.max(1_000L, periodMs));
        final RedisURI uri = RedisURI.create(settings.redisUrl());
        String urlPassword = passwordOf(settings.redisUrl());
        final String envPassword = System.getenv(RedisFleetSettings.PASSWORD_ENV);
        if (urlPassword == null && envPassword != null && !envPassword.isEmpty())
        {
            uri.setCredentialsProvider(new StaticCredentialsProvider(null, envPassword.toCharArray()));
            urlPassword = envPassword;
        }
        password = urlPassword;
        uri.setTimeout(connectTimeout);
        // The client owns its resources (event loops): shutdown() releases both.
        client = RedisClient.create(uri);
        // Reconnection is this class's own (backoff, one warning per outage): Lettuce neither buffers nor reconnects.
        client.setOptions(ClientOptions.builder()
            .autoReconnect(false)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .requestQueueSize(1024)
            .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
            .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
            .build());
    }

    /**
     * Makes sure the connection is open, opening it when it is lost and the backoff allows.
     *
     * @return null when connected, else why not (a connect failure, or the backoff's wait).
     */
    RuntimeException connect()
    {
        try
        {
            requireOpen();
            return null;
        }
        catch (final RuntimeException ex)
        {
            return ex;
        }
    }

    /**
     * Makes sure the connection is open, as {@link #connect()}, before a step changes any state.
     *
     * @throws RuntimeException when it is not (a connect failure, or the backoff's wait).
     */
    void requireOpen()
    {
        commands();
    }

    /**
     * Runs a script by its digest (a few bytes a period instead of its text), loading it when the server lacks it.
     *
     * @param script the script.
     * @param keys its keys.
     * @param args its arguments.
     * @return its reply.
     * @throws Exception when the connection is down, the command fails or times out.
     */
    List<Object> run(final FleetScript script, final byte[][] keys, final byte[][] args) throws Exception
    {
        final RedisAsyncCommands<byte[], byte[]> redis = commands();
        RedisFuture<List<Object>> reply = redis.evalsha(script.digest, ScriptOutputType.MULTI, keys, args);
        connection.flushCommands();
        try
        {
            await(reply);
        }
        catch (final ExecutionException ex)
        {
            if (!(ex.getCause() instanceof RedisNoScriptException))
            {
                throw ex;
            }
            reply = redis.eval(script.source, ScriptOutputType.MULTI, keys, args);
            connection.flushCommands();
            await(reply);
        }
        return reply.get();
    }

    /**
     * Sets a key with an expiry ({@code SET key value PX expiryMs}) and waits for the reply.
     *
     * @param key the key.
     * @param value the value.
     * @param expiryMs its expiry.
     * @throws Exception when the connection is down, the command fails or times out.
     */
    void set(final byte[] key, final byte[] value, final long expiryMs) throws Exception
    {
        final RedisFuture<String> set = commands().set(key, value, SetArgs.Builder.px(expiryMs));
        connection.flushCommands();
        await(set);
    }

    /**
     * @param failure a failure of this connection.
     * @return its class and message, and its root cause's, without the password or a URL's user information.
     */
    String describe(final Throwable failure)
    {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root)
        {
            root = root.getCause();
        }
        String message = failure.getClass().getSimpleName() + ": " + failure.getMessage() +
            (root == failure ? "" : " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")");
        if (password != null && !password.isEmpty())
        {
            message = message.replace(password, "***");
        }
        return message.replaceAll("(rediss?://)[^@/\\s]*@", "$1");
    }

    /** Closes the connection and shuts the client (and its event loops) down. */
    void close()
    {
        final StatefulRedisConnection<byte[], byte[]> c = connection;
        connection = null;
        try
        {
            if (c != null)
            {
                c.close();
            }
        }
        finally
        {
            client.shutdown();
        }
    }

    private RedisAsyncCommands<byte[], byte[]> commands()
    {
        if (connection != null && connection.isOpen())
        {
            return connection.async();
        }
        final long nowMs = clock.time();
        if (connection != null)
        {
            // Lost (server gone, reset): reconnect now, then with a backoff while it keeps failing.
            connection.close();
            connection = null;
            nextConnectMs = nowMs;
        }
        if (nowMs - nextConnectMs < 0)
        {
            throw new IllegalStateException("not connected; next attempt in " + (nextConnectMs - nowMs) + "ms");
        }
        try
        {
            final StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE);
            c.setAutoFlushCommands(false);
            connection = c;
            connectBackoffMs = 0;
            return c.async();
        }
        catch (final RuntimeException ex)
        {
            connectBackoffMs = Math.min(5_000L, Math.max(100L, connectBackoffMs * 2));
            nextConnectMs = nowMs + connectBackoffMs;
            throw ex;
        }
    }

    private void await(final RedisFuture<?> future) throws InterruptedException, ExecutionException, TimeoutException
    {
        future.get(commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    // The password of redis://[user:]password@host..., or null.
    private static String passwordOf(final String url)
    {
        final int scheme = url.indexOf("://");
        final int slash = url.indexOf('/', scheme + 3);
        final String authority = url.substring(scheme + 3, slash < 0 ? url.length() : slash);
        final int at = authority.lastIndexOf('@');
        if (at < 0)
        {
            return null;
        }
        final String userInfo = authority.substring(0, at);
        final int colon = userInfo.indexOf(':');
        final String password = colon < 0 ? userInfo : userInfo.substring(colon + 1);
        return password.isEmpty() ? null : java.net.URLDecoder.decode(password, StandardCharsets.UTF_8);
    }
}
