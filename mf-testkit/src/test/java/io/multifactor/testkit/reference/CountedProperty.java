package io.multifactor.testkit.reference;

import org.quicktheories.core.Gen;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

/**
 * Runs one property on generated cases from a fixed seed and counts them, so that a property test can check that
 * QuickTheories ran as many cases as asked and print how many it ran in all.
 * <p>
 * This class is stateless and threadsafe.
 */
final class CountedProperty
{
    private CountedProperty()
    {
    }

    /**
     * @param seed the generator's seed.
     * @param property the property's name, for the failure message.
     * @param cases how many cases to run.
     * @param gen the cases.
     * @param body the assertions on one case.
     * @param <T> the case type.
     * @return how many cases ran, at least {@code cases}.
     */
    static <T> long check(final long seed, final String property, final int cases, final Gen<T> gen,
        final Consumer<T> body)
    {
        final AtomicLong ran = new AtomicLong();
        qt().withFixedSeed(seed).withExamples(cases).forAll(gen).checkAssert(value ->
        {
            ran.incrementAndGet();
            body.accept(value);
        });
        assertThat(ran.get()).as("cases run for " + property).isGreaterThanOrEqualTo(cases);
        return ran.get();
    }
}
