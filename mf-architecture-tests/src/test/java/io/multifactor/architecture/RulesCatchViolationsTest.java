package io.multifactor.architecture;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import io.multifactor.api.archfixture.ApiUsingTheKernel;
import io.multifactor.archfixture.one.One;
import io.multifactor.archfixture.two.Two;
import io.multifactor.bench.archfixture.BenchUsingTools;
import io.multifactor.config.archfixture.ConfigUsingMicrometer;
import io.multifactor.fakes.archfixture.FakesUsingConfig;
import io.multifactor.gateway.archfixture.GatewayUsingNetty;
import io.multifactor.gateway.archfixture.GatewayUsingTools;
import io.multifactor.kernel.archfixture.KernelUsingConfig;
import io.multifactor.langchain4j.archfixture.LangChain4jUsingTheGateway;
import io.multifactor.micrometer.archfixture.MicrometerUsingConfig;
import io.multifactor.redis.archfixture.RedisUsingConfig;
import io.multifactor.servers.archfixture.ServersUsingConfigAndAgrona;
import io.multifactor.serving.archfixture.ServingUsingLangChain4j;
import io.multifactor.serving.archfixture.ServingUsingNetty;
import io.multifactor.sim.archfixture.SimUsingGateway;
import io.multifactor.testkit.archfixture.TestkitUsingTools;
import io.multifactor.tools.archfixture.ToolsUsingBench;
import io.multifactor.tools.archfixture.ToolsUsingTestkit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each rule of {@link ModuleRules} fails on a class that breaks it (the fixtures in {@code ..archfixture} packages,
 * test classes of this module only), naming the class and what it uses: a rule that passed whatever the code did would
 * enforce nothing.
 */
@Timeout(60)
class RulesCatchViolationsTest
{
    private static void fails(final ArchRule rule, final Class<?> fixture, final String used)
    {
        assertThatThrownBy(() -> rule.check(new ClassFileImporter().importClasses(fixture)))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining(fixture.getName())
            .hasMessageContaining(used);
    }

    @Test
    void shouldFailACoreClassThatUsesAFramework()
    {
        fails(ModuleRules.noFramework(), ServingUsingLangChain4j.class, "dev.langchain4j.model.chat.ChatModel");
    }

    @Test
    void shouldFailALangChain4jClassThatReachesTheGateway()
    {
        fails(ModuleRules.langchain4j(), LangChain4jUsingTheGateway.class, "io.multifactor.gateway.Gateway");
    }

    @Test
    void shouldFailAnApiClassThatUsesTheKernel()
    {
        fails(ModuleRules.api(), ApiUsingTheKernel.class, "io.multifactor.kernel.engine.MultiFactorEngine");
    }

    @Test
    void shouldFailAKernelClassThatUsesConfig()
    {
        fails(ModuleRules.kernel(), KernelUsingConfig.class, "io.multifactor.config.ConfigLoader");
    }

    @Test
    void shouldFailAConfigClassThatUsesMicrometer()
    {
        fails(ModuleRules.config(), ConfigUsingMicrometer.class, "io.multifactor.micrometer.MultiFactorMetrics");
    }

    @Test
    void shouldFailAServingClassThatUsesANetworkStack()
    {
        fails(ModuleRules.serving(), ServingUsingNetty.class, "io.netty.buffer.ByteBuf");
    }

    @Test
    void shouldFailAGatewayClassThatUsesTheCli()
    {
        fails(ModuleRules.gateway(), GatewayUsingTools.class, "io.multifactor.tools.Mf");
    }

    @Test
    void shouldFailAGatewayClassThatUsesNettyDirectly()
    {
        fails(ModuleRules.gatewayWithoutNetty(), GatewayUsingNetty.class, "io.netty.buffer.ByteBuf");
    }

    @Test
    void shouldFailASimClassThatUsesTheGateway()
    {
        fails(ModuleRules.sim(), SimUsingGateway.class, "io.multifactor.gateway.Gateway");
    }

    @Test
    void shouldFailAFakesClassThatUsesConfig()
    {
        fails(ModuleRules.fakes(), FakesUsingConfig.class, "io.multifactor.config.ConfigLoader");
    }

    @Test
    void shouldFailAMainClassOutsideTheBenchmarksThatUsesTheTestkit()
    {
        fails(ModuleRules.testkitInMainScopeOfBenchOnly(), ToolsUsingTestkit.class,
            "io.multifactor.testkit.reference.ReferenceRouter");
        fails(ModuleRules.tools(), ToolsUsingTestkit.class, "io.multifactor.testkit.reference.ReferenceRouter");
    }

    @Test
    void shouldFailATestkitClassThatUsesTheCli()
    {
        fails(ModuleRules.testkit(), TestkitUsingTools.class, "io.multifactor.tools.Mf");
    }

    @Test
    void shouldFailAMicrometerBinderClassThatUsesConfig()
    {
        fails(ModuleRules.micrometer(), MicrometerUsingConfig.class, "io.multifactor.config.ConfigLoader");
    }

    @Test
    void shouldFailAServersClassThatUsesConfigOrAgrona()
    {
        fails(ModuleRules.servers(), ServersUsingConfigAndAgrona.class, "io.multifactor.config.ConfigLoader");
        fails(ModuleRules.servers(), ServersUsingConfigAndAgrona.class, "org.agrona.concurrent.SystemNanoClock");
    }

    @Test
    void shouldFailARedisClassThatUsesConfig()
    {
        fails(ModuleRules.redis(), RedisUsingConfig.class, "io.multifactor.config.ConfigLoader");
    }

    @Test
    void shouldFailAToolsClassThatUsesTheBenchmarks()
    {
        fails(ModuleRules.tools(), ToolsUsingBench.class, "io.multifactor.bench.BenchFlags");
    }

    @Test
    void shouldFailABenchmarkClassThatUsesTheCli()
    {
        fails(ModuleRules.bench(), BenchUsingTools.class, "io.multifactor.tools.Mf");
    }

    @Test
    void shouldFailAWriteIntoASelectionOutsideTheKernel()
    {
        fails(ModuleRules.selectionWrittenByKernelOnly(), TestkitUsingTools.class, "io.multifactor.kernel.scoring.SelectionWriter");
    }

    @Test
    void shouldFailAPackageCycle()
    {
        assertThatThrownBy(() -> ModuleRules.noPackageCycle().check(new ClassFileImporter().importClasses(One.class, Two.class)))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining("Cycle detected")
            .hasMessageContaining("archfixture.one")
            .hasMessageContaining("archfixture.two");
    }
}
