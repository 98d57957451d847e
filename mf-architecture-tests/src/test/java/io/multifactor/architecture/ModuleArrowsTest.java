package io.multifactor.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import io.multifactor.api.Selection;
import io.multifactor.bench.BenchFlags;
import io.multifactor.config.ConfigLoader;
import io.multifactor.envoy.ExtProcApp;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.gateway.Gateway;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.micrometer.MultiFactorMetrics;
import io.multifactor.redis.RedisFleetExchange;
import io.multifactor.servers.ServerScrapeAgent;
import io.multifactor.serving.RequestLifecycle;
import io.multifactor.sim.fleet.InMemoryFleet;
import io.multifactor.spring.boot.MultiFactorAutoConfiguration;
import io.multifactor.testkit.reference.ReferenceRouter;
import io.multifactor.tools.Mf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;

/**
 * The module arrows of the architecture ({@link ModuleRules}), enforced on every module's main classes: each module is
 * imported from its own build output (found through one of its classes), so a rule says what the classes of one module
 * may use. A forbidden import fails the build with the offending class, member and line; so does a package cycle
 * anywhere in {@code io.multifactor}, and a write into a {@link Selection} from outside the kernel.
 */
@Timeout(300)
class ModuleArrowsTest
{
    private static final JavaClasses API = of(Selection.class);
    private static final JavaClasses KERNEL = of(MultiFactorEngine.class);
    private static final JavaClasses CONFIG = of(ConfigLoader.class);
    private static final JavaClasses MICROMETER = of(MultiFactorMetrics.class);
    private static final JavaClasses REDIS = of(RedisFleetExchange.class);
    private static final JavaClasses SERVERS = of(ServerScrapeAgent.class);
    private static final JavaClasses SERVING = of(RequestLifecycle.class);
    private static final JavaClasses GATEWAY = of(Gateway.class);
    private static final JavaClasses TESTKIT = of(ReferenceRouter.class);
    private static final JavaClasses SIM = of(InMemoryFleet.class);
    private static final JavaClasses FAKES = of(FakeBackends.class);
    private static final JavaClasses TOOLS = of(Mf.class);
    private static final JavaClasses BENCH = of(BenchFlags.class);
    private static final JavaClasses SPRING_BOOT = of(MultiFactorAutoConfiguration.class);
    private static final JavaClasses SPRING_AI = of(io.multifactor.spring.ai.MultiFactorChatModel.class);
    private static final JavaClasses LANGCHAIN4J = of(io.multifactor.langchain4j.MultiFactorChatModel.class);
    private static final JavaClasses ALL = of(
        Selection.class, MultiFactorEngine.class, ConfigLoader.class, MultiFactorMetrics.class,
        RedisFleetExchange.class, ServerScrapeAgent.class, ReferenceRouter.class, Mf.class, BenchFlags.class,
        RequestLifecycle.class, Gateway.class, InMemoryFleet.class, FakeBackends.class, ExtProcApp.class);

    @Test
    void coreModulesNeverSeeSpringOrLangChain4j()
    {
        ModuleRules.noFramework().check(ALL);
    }

    @Test
    void springBootStarterDependsOnServingMicrometerAndSpringOnly()
    {
        ModuleRules.springBootStarter().check(SPRING_BOOT);
    }

    @Test
    void springAiDependsOnTheStarterServingAndSpringAiOnly()
    {
        ModuleRules.springAi().check(SPRING_AI);
    }

    @Test
    void langchain4jDependsOnServingAndLangChain4jOnly()
    {
        ModuleRules.langchain4j().check(LANGCHAIN4J);
    }

    @Test
    void apiDependsOnTheJdkOnly()
    {
        ModuleRules.api().check(API);
    }

    @Test
    void kernelDependsOnApiAgronaAndHdrHistogramOnly()
    {
        ModuleRules.kernel().check(KERNEL);
    }

    @Test
    void configDependsOnTheKernelAndJacksonOnly()
    {
        ModuleRules.config().check(CONFIG);
    }

    @Test
    void micrometerBinderDependsOnTheKernelAndMicrometerOnly()
    {
        ModuleRules.micrometer().check(MICROMETER);
    }

    @Test
    void serversDependOnTheKernelAndTheJdkOnly()
    {
        ModuleRules.servers().check(SERVERS);
    }

    @Test
    void servingHasNoHttpStack()
    {
        ModuleRules.serving().check(SERVING);
    }

    @Test
    void gatewayReachesNoCliTestkitOrBenchmarks()
    {
        ModuleRules.gateway().check(GATEWAY);
    }

    @Test
    void gatewayUsesNettyOnlyThroughVertx()
    {
        ModuleRules.gatewayWithoutNetty().check(GATEWAY);
    }

    @Test
    void simDependsOnConfigServingAndVertxOnly()
    {
        ModuleRules.sim().check(SIM);
    }

    @Test
    void fakesDependOnApiVertxAndJacksonOnly()
    {
        ModuleRules.fakes().check(FAKES);
    }

    @Test
    void onlyTheBenchmarksUseTheTestkitInMainScope()
    {
        ModuleRules.testkitInMainScopeOfBenchOnly().check(ALL);
    }

    @Test
    void redisSeesNoConfigurationMetricsTestkitOrCli()
    {
        ModuleRules.redis().check(REDIS);
    }

    @Test
    void testkitBringsNoCliChartsRedisOrMicrometer()
    {
        ModuleRules.testkit().check(TESTKIT);
    }

    @Test
    void toolsAndBenchmarksStayOnTheirSide()
    {
        ModuleRules.tools().check(TOOLS);
        ModuleRules.bench().check(BENCH);
    }

    @Test
    void noPackageCycleAnywhere()
    {
        ModuleRules.noPackageCycle().check(ALL);
    }

    @Test
    void onlyTheKernelWritesASelection()
    {
        ModuleRules.selectionWrittenByKernelOnly().check(ALL);
    }

    /**
     * @param oneClassPerModule a class of each module to import.
     * @return the main classes of those modules, from the build outputs that hold those classes.
     */
    static JavaClasses of(final Class<?>... oneClassPerModule)
    {
        final List<Location> locations = new ArrayList<>();
        for (final Class<?> c : oneClassPerModule)
        {
            try
            {
                locations.add(Location.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()));
            }
            catch (final URISyntaxException ex)
            {
                throw new IllegalStateException("no location for " + c.getName(), ex);
            }
        }
        return new ClassFileImporter().importLocations(locations);
    }
}
