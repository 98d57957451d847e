package io.multifactor.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three router replicas in three JVMs share their in-flight counts through a real redis-server (password from the
 * environment); one of them is killed with SIGKILL.
 */
class FleetAcrossProcessesTest
{
    private static final String PASSWORD = "pw-9d41-multi";
    // A long period keeps the claims (2 periods to see, 4 to forget) meaningful on a machine with a load of 20, where a
    // replica's threads can wait a few hundred milliseconds for a core.
    private static final long PERIOD_MS = 1_000;
    private static RedisServer server;

    private final List<Replica> replicas = new ArrayList<>();

    @BeforeAll
    static void startServer()
    {
        server = new RedisServer(PASSWORD).start();
    }

    @AfterAll
    static void stopServer()
    {
        server.close();
    }

    @AfterEach
    void stopReplicas()
    {
        replicas.forEach(Replica::kill);
    }

    @Test
    void shouldSeeEachOthersInflightWithinTwoPeriodsAndForgetAKilledReplicaWithinFour() throws Exception
    {
        for (int r = 0; r < 3; r++)
        {
            replicas.add(new Replica("replica-" + r, r + 1));
        }
        for (final Replica replica : replicas)
        {
            replica.awaitLine("ready", 60_000);
        }
        // 1 + 2 + 3 leases: every replica converges on 6.
        for (final Replica replica : replicas)
        {
            replica.awaitFleet(6, 20_000);
        }

        replicas.get(0).send("begin 5");
        final long beganMs = Long.parseLong(replicas.get(0).awaitLine("began 5", 10_000).split(" ")[2]);
        for (final Replica replica : replicas.subList(1, 3))
        {
            final long seenMs = replica.awaitFleet(11, 10_000);
            System.out.println(replica.id + " saw the new leases after " + (seenMs - beganMs) + " ms");
            assertThat(seenMs - beganMs).as("ms until %s saw the new leases", replica.id)
                .isLessThanOrEqualTo(2 * PERIOD_MS);
        }

        final Replica victim = replicas.get(2);
        final long killedMs = System.currentTimeMillis();
        victim.kill();
        for (final Replica replica : replicas.subList(0, 2))
        {
            final long forgottenMs = replica.awaitFleet(8, 10_000);
            System.out.println(replica.id + " forgot the killed replica after " + (forgottenMs - killedMs) + " ms");
            assertThat(forgottenMs - killedMs).as("ms until %s forgot the killed replica", replica.id)
                .isLessThanOrEqualTo(4 * PERIOD_MS);
        }
    }

    /** A replica JVM and the lines it printed, each with the parent's arrival time. */
    private static final class Replica
    {
        final String id;
        final Process process;
        final Writer stdin;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Replica(final String id, final int leases)
        {
            this.id = id;
            final String java = ProcessHandle.current().info().command().orElse("java");
            final ProcessBuilder builder = new ProcessBuilder(java,
                "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                FleetReplicaMain.class.getName(),
                server.urlWithoutPassword(), "multi", Long.toString(PERIOD_MS), id, Integer.toString(leases));
            builder.environment().put(RedisFleetSettings.PASSWORD_ENV, PASSWORD);
            builder.redirectError(ProcessBuilder.Redirect.INHERIT);
            try
            {
                process = builder.start();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            final Thread reader = new Thread(() ->
            {
                try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
                {
                    String line;
                    while ((line = in.readLine()) != null)
                    {
                        lines.add(line);
                    }
                }
                catch (final IOException ignored)
                {
                    // The process was killed.
                }
            });
            reader.setDaemon(true);
            reader.start();
        }

        void send(final String command) throws IOException
        {
            stdin.write(command + "\n");
            stdin.flush();
        }

        String awaitLine(final String prefix, final long timeoutMs) throws InterruptedException
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (true)
            {
                final String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertThat(line).as("%s printed %s in time", id, prefix).isNotNull();
                if (line.startsWith(prefix))
                {
                    return line;
                }
            }
        }

        /** @return the replica's wall-clock time at which its fleet-wide count of model a became {@code count}. */
        long awaitFleet(final long count, final long timeoutMs) throws InterruptedException
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (true)
            {
                final String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertThat(line).as("%s saw a fleet count of %d in time", id, count).isNotNull();
                final String[] parts = line.split(" ");
                if (parts[0].equals("fleet") && Long.parseLong(parts[1]) == count)
                {
                    return Long.parseLong(parts[3]);
                }
            }
        }

        void kill()
        {
            // SIGKILL: no goodbye, the replica's entries expire on their own.
            process.destroyForcibly();
            try
            {
                process.waitFor(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
