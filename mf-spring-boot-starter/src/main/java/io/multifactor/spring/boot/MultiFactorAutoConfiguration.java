package io.multifactor.spring.boot;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.serving.EngineHost;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Starts multi-factor in a Spring Boot application when {@code multifactor.config} is set, and nothing otherwise: the
 * {@link EngineHost} (the serving layer's one start-up and reload: the engine, its refresh agent, the scrape agent when
 * the file scrapes model servers, a fleet agent when the application defines a {@link FleetExchange} bean, and the file
 * watcher), the {@link MultiFactorEngine} as a bean, the Micrometer binder when a {@code MeterRegistry} exists and an
 * Actuator health indicator when Actuator's health API is present. A configuration that does not load fails start-up
 * with every problem, each naming the file, line and column.
 * <p>
 * This class is threadsafe: Spring calls it while it builds the context.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "multifactor", name = "config")
@EnableConfigurationProperties(MultiFactorProperties.class)
public class MultiFactorAutoConfiguration
{
    /** Creates the auto-configuration (Spring does). */
    public MultiFactorAutoConfiguration()
    {
    }

    /**
     * @return what the reloads did.
     */
    @Bean
    @ConditionalOnMissingBean
    public MultiFactorReloads multiFactorReloads()
    {
        return new MultiFactorReloads();
    }

    /**
     * @param properties the {@code multifactor.*} properties.
     * @param resources where {@code classpath:} locations are found.
     * @param fleet the application's fleet exchange, if it defines one (for example from mf-redis).
     * @param reloads told every reload's result.
     * @return the running host; closed with the context.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public EngineHost multiFactorEngineHost(final MultiFactorProperties properties, final ResourceLoader resources,
        final ObjectProvider<FleetExchange> fleet, final MultiFactorReloads reloads)
    {
        final ConfigLocation config = ConfigLocation.resolve(properties.config(), resources);
        final ConfigLocation overlay =
            properties.overlay() == null ? null : ConfigLocation.resolve(properties.overlay(), resources);
        final LoadedConfig loaded;
        try
        {
            loaded = ConfigLoader.load(config.path(), overlay == null ? null : overlay.path(), null,
                MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
        }
        catch (final InvalidConfigurationException ex)
        {
            throw new IllegalStateException("multifactor.config " + properties.config() + " is not valid:\n" +
                ex.getMessage(), ex);
        }
        final EngineHost host = EngineHost.start(
            loaded, config.path(), overlay == null ? null : overlay.path(), fleet.getIfAvailable());
        if (properties.watch() && config.watchable())
        {
            try
            {
                host.watch(reloads, EngineHost.RELOAD_DEBOUNCE_MS, null);
            }
            catch (final IOException | RuntimeException ex)
            {
                host.close();
                throw ex instanceof IOException ? new UncheckedIOException((IOException)ex) : (RuntimeException)ex;
            }
        }
        return host;
    }

    /**
     * @param host the running host.
     * @return its engine (closed by the host, not by the context).
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public MultiFactorEngine multiFactorEngine(final EngineHost host)
    {
        return host.engine();
    }

    /**
     * The engine's counters as Micrometer meters, on every {@code MeterRegistry} bean of the application.
     * <p>
     * This class is threadsafe: Spring calls it while it builds the context.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {
        "io.micrometer.core.instrument.MeterRegistry", "io.multifactor.micrometer.MultiFactorMetrics"})
    public static class MetricsConfiguration
    {
        /** Creates the configuration (Spring does). */
        public MetricsConfiguration()
        {
        }

        /**
         * @param engine the engine.
         * @param registries the application's registries.
         * @return the binding, which binds once every singleton exists; closed with the context.
         */
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        public MultiFactorMeterRegistration multiFactorMeterRegistration(final MultiFactorEngine engine,
            final ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registries)
        {
            return new MultiFactorMeterRegistration(engine, registries);
        }
    }

    /**
     * The health indicator, when Actuator's health API is on the class path.
     * <p>
     * This class is threadsafe: Spring calls it while it builds the context.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    public static class HealthConfiguration
    {
        /** Creates the configuration (Spring does). */
        public HealthConfiguration()
        {
        }

        /**
         * @param host the running host.
         * @param reloads what the reloads did.
         * @return the indicator (its name in the health endpoint: {@code multiFactor}).
         */
        @Bean
        @ConditionalOnMissingBean
        public MultiFactorHealthIndicator multiFactorHealthIndicator(final EngineHost host,
            final MultiFactorReloads reloads)
        {
            return new MultiFactorHealthIndicator(host, reloads);
        }
    }
}
