package io.multifactor.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.micrometer.MultiFactorMetrics;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Binds the engine's meters ({@link MultiFactorMetrics}) to every {@link MeterRegistry} bean once the context's
 * singletons exist. It is not itself a {@code MeterBinder} bean, so Actuator's own binding does not bind it a second
 * time.
 * <p>
 * This class is threadsafe: the binder serializes binding and closing.
 */
public final class MultiFactorMeterRegistration implements SmartInitializingSingleton, AutoCloseable
{
    private final MultiFactorMetrics metrics;
    private final ObjectProvider<MeterRegistry> registries;

    /**
     * @param engine the engine whose counters are exposed.
     * @param registries the application's registries.
     */
    public MultiFactorMeterRegistration(final MultiFactorEngine engine, final ObjectProvider<MeterRegistry> registries)
    {
        this.metrics = new MultiFactorMetrics(engine);
        this.registries = registries;
    }

    @Override
    public void afterSingletonsInstantiated()
    {
        registries.orderedStream().forEach(metrics::bindTo);
    }

    /** @return the binder (to bind another registry by hand). */
    public MultiFactorMetrics metrics()
    {
        return metrics;
    }

    /** Removes the meters. */
    @Override
    public void close()
    {
        metrics.close();
    }
}
