package io.multifactor.architecture;

import com.tngtech.archunit.lang.ArchRule;
import io.multifactor.kernel.scoring.SelectionWriter;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The module arrows as ArchUnit rules, each applied to the classes of one module: what it may use (a whitelist where
 * the architecture names every dependency, a list of forbidden packages where it names what a user must not get).
 * <p>
 * This class is threadsafe: it holds no state; each method builds a new, immutable rule.
 */
final class ModuleRules
{
    private static final String[] BELOW_TOOLS = {
        "picocli..", "org.jfree..", "org.openjdk.jmh..", "io.multifactor.tools..", "io.multifactor.bench.."};

    private ModuleRules()
    {
    }

    /** @return mf-api depends on the JDK only. */
    static ArchRule api()
    {
        return onlyOn("io.multifactor.api..");
    }

    /** @return mf-kernel depends on mf-api, Agrona and HdrHistogram only. */
    static ArchRule kernel()
    {
        return onlyOn("io.multifactor.api..", "io.multifactor.kernel..", "org.agrona..", "org.HdrHistogram..");
    }

    /** @return mf-config depends on mf-kernel (and what it exposes: Agrona's clock) and Jackson YAML only. */
    static ArchRule config()
    {
        return onlyOn("io.multifactor.api..", "io.multifactor.kernel..", "io.multifactor.config..",
            "com.fasterxml.jackson..", "org.yaml.snakeyaml..", "org.agrona..");
    }

    /** @return mf-micrometer depends on mf-kernel and Micrometer only. */
    static ArchRule micrometer()
    {
        return onlyOn("io.multifactor.api..", "io.multifactor.kernel..", "io.multifactor.micrometer..",
            "io.micrometer..", "org.agrona..");
    }

    /** @return mf-servers depends on mf-kernel and the JDK (its HTTP client) only. */
    static ArchRule servers()
    {
        return onlyOn("io.multifactor.api..", "io.multifactor.kernel..", "io.multifactor.servers..");
    }

    /** @return mf-serving depends on mf-config, mf-servers (ORCA reports) and Jackson only: no HTTP or gRPC stack. */
    static ArchRule serving()
    {
        return onlyOn("io.multifactor.api..", "io.multifactor.kernel..", "io.multifactor.config..",
            "io.multifactor.servers..", "io.multifactor.serving..", "com.fasterxml.jackson.core..", "org.agrona..");
    }

    /** @return mf-gateway reaches neither the CLI, the test kit, the simulator, the fake servers nor the benchmarks. */
    static ArchRule gateway()
    {
        return none(join(BELOW_TOOLS, "io.multifactor.testkit..", "io.multifactor.sim..", "io.multifactor.fakes.."));
    }

    /** @return mf-gateway uses Netty only through Vert.x: one HTTP stack. */
    static ArchRule gatewayWithoutNetty()
    {
        return noClasses().should().dependOnClassesThat().resideInAnyPackage("io.netty..")
            .because("the gateway serves on Vert.x core only (DESIGN 11, one HTTP stack)");
    }

    /**
     * @return mf-sim depends on mf-config and mf-serving (and what they expose), Vert.x core (the load generator's
     *     client), Agrona and HdrHistogram only: no gateway, fake servers, test kit, Redis or CLI.
     */
    static ArchRule sim()
    {
        return onlyOn("io.multifactor.api..", "io.multifactor.kernel..", "io.multifactor.config..",
            "io.multifactor.servers..", "io.multifactor.serving..", "io.multifactor.sim..", "io.vertx.core..",
            "org.agrona..", "org.HdrHistogram..");
    }

    /** @return mf-fakes depends on mf-api, Vert.x core and Jackson only: a fixture any module's tests can take. */
    static ArchRule fakes()
    {
        return onlyOn("io.multifactor.api..", "io.multifactor.fakes..", "io.vertx.core..", "com.fasterxml.jackson..");
    }

    /** @return in main scope, only mf-bench (besides mf-testkit itself) uses mf-testkit. */
    static ArchRule testkitInMainScopeOfBenchOnly()
    {
        return noClasses().that().resideOutsideOfPackages("io.multifactor.testkit..", "io.multifactor.bench..")
            .should().dependOnClassesThat().resideInAnyPackage("io.multifactor.testkit..")
            .because("mf-testkit is for tests and benchmarks; the tools take the simulator from mf-sim");
    }

    /** @return mf-redis sees neither configuration, metrics, test kit, CLI nor benchmarks. */
    static ArchRule redis()
    {
        return none(join(BELOW_TOOLS, "io.multifactor.config..", "com.fasterxml.jackson..", "io.multifactor.micrometer..",
            "io.micrometer..", "io.multifactor.testkit.."));
    }

    /** @return mf-testkit brings no CLI, no chart library, no Redis, no Micrometer, no JMH. */
    static ArchRule testkit()
    {
        return none(join(BELOW_TOOLS, "io.multifactor.redis..", "io.lettuce..", "io.multifactor.micrometer..",
            "io.micrometer.."));
    }

    /** @return mf-tools reaches neither the benchmarks nor the test kit (it simulates through mf-sim). */
    static ArchRule tools()
    {
        return none("io.multifactor.bench..", "org.openjdk.jmh..", "io.multifactor.testkit..");
    }

    /** @return mf-bench measures the library, not the CLI. */
    static ArchRule bench()
    {
        return none("io.multifactor.tools..", "picocli..", "org.jfree..");
    }

    /** @return the core modules (all but the framework integrations) never see Spring, Reactor or LangChain4j. */
    static ArchRule noFramework()
    {
        return none("org.springframework..", "reactor..", "dev.langchain4j..");
    }

    /**
     * @return mf-spring-boot-starter depends on mf-serving (and what it exposes), mf-micrometer and Micrometer
     *     (optional), and Spring only: no Spring AI, no LangChain4j.
     */
    static ArchRule springBootStarter()
    {
        return onlyOn("io.multifactor.api..", "io.multifactor.kernel..", "io.multifactor.config..",
            "io.multifactor.serving..", "io.multifactor.micrometer..", "io.multifactor.spring.boot..", "io.micrometer..",
            "org.springframework.beans..", "org.springframework.boot..", "org.springframework.context..",
            "org.springframework.core..");
    }

    /** @return mf-spring-ai depends on the starter, mf-serving, Spring, Spring AI and Reactor only. */
    static ArchRule springAi()
    {
        return onlyOn("io.multifactor.api..", "io.multifactor.kernel..", "io.multifactor.serving..",
            "io.multifactor.spring.boot..", "io.multifactor.spring.ai..", "org.springframework..", "reactor.core..");
    }

    /** @return mf-langchain4j depends on mf-serving (and what it exposes) and LangChain4j only: no Spring. */
    static ArchRule langchain4j()
    {
        return onlyOn("io.multifactor.api..", "io.multifactor.kernel..", "io.multifactor.config..",
            "io.multifactor.serving..", "io.multifactor.langchain4j..", "dev.langchain4j..");
    }

    /** @return no two packages of {@code io.multifactor} use each other, directly or through others. */
    static ArchRule noPackageCycle()
    {
        return slices().matching("io.multifactor.(**)").should().beFreeOfCycles();
    }

    /** @return only the kernel uses the writer side of a selection. */
    static ArchRule selectionWrittenByKernelOnly()
    {
        return noClasses().that().resideOutsideOfPackages("io.multifactor.kernel..", "io.multifactor.api..")
            .should().dependOnClassesThat().haveFullyQualifiedName(SelectionWriter.class.getName())
            .because("a caller reads a Selection; only the kernel writes it");
    }

    private static ArchRule onlyOn(final String... allowed)
    {
        return classes().should().onlyDependOnClassesThat().resideInAnyPackage(join(new String[] {"java.."}, allowed));
    }

    private static ArchRule none(final String... forbidden)
    {
        return noClasses().should().dependOnClassesThat().resideInAnyPackage(forbidden);
    }

    private static String[] join(final String[] first, final String... more)
    {
        final String[] all = new String[first.length + more.length];
        System.arraycopy(first, 0, all, 0, first.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
