package io.multifactor.testkit.reference;

import java.util.List;

/**
 * Peak-EWMA written from its definition, for the tests: the estimate E starts at the first sample; each sample x at
 * time t sets {@code E = max(x, E*w + x*(1-w))} with {@code w = exp(-(t - t_prev)/tau)}; read at {@code now}, the
 * estimate is {@code E * exp(-(now - t_last)/tau)}; with no sample for the window it is missing, and a sample that
 * comes a window or more after the previous one starts the estimate again, as the first did.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ReferencePeakEwma
{
    private ReferencePeakEwma()
    {
    }

    /**
     * One sample: a time and a value.
     *
     * @param timeS when it was recorded, in seconds.
     * @param value its value, in any unit (the estimate has the same).
     */
    public record Sample(double timeS, double value)
    {
    }

    /**
     * @param samples the samples in the order they were recorded (times not decreasing).
     * @param nowS the reading time, at or after the last sample.
     * @param tauS the time constant ({@code ewma_decay}), seconds.
     * @param windowS how long an estimate lasts without samples ({@code latency_window}), seconds.
     * @return the estimate read at {@code nowS}, or NaN when missing (no sample, or none for the window).
     */
    public static double estimate(final List<Sample> samples, final double nowS, final double tauS, final double windowS)
    {
        if (samples.isEmpty())
        {
            return Double.NaN;
        }
        double estimate = samples.get(0).value();
        double last = samples.get(0).timeS();
        for (int i = 1; i < samples.size(); i++)
        {
            final Sample sample = samples.get(i);
            final double gap = sample.timeS() - last;
            if (gap >= windowS)
            {
                estimate = sample.value();
            }
            else
            {
                final double w = Math.exp(-gap / tauS);
                estimate = Math.max(sample.value(), estimate * w + sample.value() * (1 - w));
            }
            last = sample.timeS();
        }
        if (nowS - last >= windowS)
        {
            return Double.NaN;
        }
        return estimate * Math.exp(-(nowS - last) / tauS);
    }
}
