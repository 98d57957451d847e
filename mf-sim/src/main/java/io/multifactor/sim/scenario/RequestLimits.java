package io.multifactor.sim.scenario;

import io.multifactor.api.Capability;
import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.config.read.CapabilityList;
import io.multifactor.config.read.MappingReader;
import io.multifactor.config.read.NearestName;
import io.multifactor.config.yaml.Excerpt;

import java.util.List;

/**
 * What a scenario's request carries for eligibility and admission: {@code needs} (capabilities), {@code request_slo}
 * ({@code max_ttft_ms}, {@code max_tpot_ms}: positive numbers) and {@code priority} (critical, standard, sheddable).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param needs bits of {@link Capability}, 0 when none.
 * @param maxTtftMs the request's own TTFT ceiling in milliseconds, 0 when none.
 * @param maxTpotMs the request's own TPOT ceiling in milliseconds, 0 when none.
 * @param priority a {@link Priority} code.
 */
public record RequestLimits(int needs, double maxTtftMs, double maxTpotMs, int priority)
{
    /** A request with no needs, no ceilings of its own, priority standard. */
    public static final RequestLimits NONE = new RequestLimits(0, 0.0, 0.0, Priority.STANDARD);

    /** The scenario's keys read here. */
    static final List<String> KEYS = List.of("needs", "request_slo", "priority");

    private static final List<String> SLO_KEYS = List.of("max_ttft_ms", "max_tpot_ms");
    private static final List<String> PRIORITIES = List.of("critical", "standard", "sheddable");

    /**
     * Reads the keys, reporting each bad value at its place.
     *
     * @param top the scenario's root mapping.
     * @return what was read; meaningful only when nothing was reported.
     */
    static RequestLimits read(final MappingReader top)
    {
        final int needs = Math.max(0, CapabilityList.read(top, "needs", 0));
        double ttft = 0.0;
        double tpot = 0.0;
        final MappingReader slo = top.optionalMapping("request_slo", SLO_KEYS);
        if (slo != null)
        {
            ttft = positive(slo, "max_ttft_ms");
            tpot = positive(slo, "max_tpot_ms");
        }
        int priority = Priority.STANDARD;
        final String word = top.optionalString("priority", null);
        if (word != null)
        {
            priority = Priority.parse(word);
            if (priority < 0)
            {
                top.problems().error(top.value("priority"), top.path("priority"), "unknown priority \"" +
                    Excerpt.value(word) + "\" (expected critical, standard or sheddable" +
                    NearestName.suggestion(word, PRIORITIES) + ')');
                priority = Priority.STANDARD;
            }
        }
        return new RequestLimits(needs, ttft, tpot, priority);
    }

    /**
     * @param request the request to fill in.
     */
    void applyTo(final Request request)
    {
        request.needs(needs).maxTtftMs(maxTtftMs).maxTpotMs(maxTpotMs).priority(priority);
    }

    private static double positive(final MappingReader slo, final String key)
    {
        if (!slo.has(key))
        {
            return 0.0;
        }
        final double value = slo.optionalNumber(key, 0.0, false);
        if (!(value > 0.0))
        {
            if (!Double.isNaN(value))
            {
                slo.problems().error(slo.value(key), slo.path(key), "must be a positive number of milliseconds, got " +
                    value);
            }
            return 0.0;
        }
        return value;
    }
}
