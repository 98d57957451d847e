package io.multifactor.kernel.engine;

import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Builds an engine in a separate JVM started without, then with, Agrona's {@code --add-exports} flag: without it the
 * build fails at once with one message naming the flag, not with Agrona's {@link IllegalAccessError}.
 */
class AgronaFlagTest
{
    /** The child JVM's program: builds an engine and says so. */
    public static final class BuildOneEngine
    {
        private BuildOneEngine()
        {
        }

        /**
         * @param args ignored.
         */
        public static void main(final String[] args)
        {
            final MultiFactorEngine engine = MultiFactorEngine.builder(
                new PlansBuilder().model("m", 0.5, 1.0).decision("d").candidates("m").add().build()).build();
            engine.close();
            System.out.println("engine built");
        }
    }

    @Test
    void shouldRefuseToBuildAnEngineWithoutTheFlagAndNameIt() throws Exception
    {
        final Child child = run(false);

        assertThat(child.exit).isNotZero();
        assertThat(child.out).doesNotContain("engine built");
        assertThat(child.err)
            .contains("java.lang.IllegalStateException: multi-factor cannot start: this JVM lacks the flag " +
                "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED")
            .doesNotContain("IllegalAccessError");
    }

    @Test
    void shouldBuildAnEngineWithTheFlag() throws Exception
    {
        final Child child = run(true);

        assertThat(child.exit).as(child.err).isZero();
        assertThat(child.out).isEqualTo("engine built\n");
    }

    @Test
    void shouldSeeTheFlagInThisJvm()
    {
        // Surefire's argLine carries the flag: the check must agree with Agrona working here.
        assertThat(AgronaAccess.granted()).isTrue();
    }

    private static Child run(final boolean withFlag) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (withFlag)
        {
            command.add(AgronaAccess.FLAG.replace(' ', '='));
        }
        command.addAll(List.of("-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
            BuildOneEngine.class.getName()));
        final Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        final byte[] out = process.getInputStream().readAllBytes();
        final byte[] err = process.getErrorStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Child(process.exitValue(), new String(out, StandardCharsets.UTF_8),
            new String(err, StandardCharsets.UTF_8));
    }

    private record Child(int exit, String out, String err)
    {
    }
}
