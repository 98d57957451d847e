package io.multifactor.micrometer;

import io.micrometer.core.instrument.Tags;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import org.agrona.concurrent.status.CountersReader;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the live counters of an engine and derives the meters they call for, by meter key. The counters file holds
 * {@code mf.selected} per decision, model and outcome; the meters {@code mf.selected{decision,model}} and
 * {@code mf.selections{decision,outcome}} are its sums (plus the {@code failed} counter of each decision). Retired
 * counters, engine-internal events and labels that do not parse are left out.
 * <p>
 * This class is stateless and threadsafe; it allocates, off the request path.
 */
final class MeterSpecs
{
    private MeterSpecs()
    {
    }

    static Map<String, MeterSpec> of(final CountersReader reader, final Tags commonTags)
    {
        final Map<String, MeterSpec> specs = new LinkedHashMap<>();
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (!CounterTypes.isEngineType(typeId) ||
                keyBuffer.getInt(CounterTypes.KEY_STATE_OFFSET) != CounterTypes.KEY_LIVE)
            {
                return;
            }
            final CounterLabel parsed = CounterLabel.parse(label);
            if (parsed == null)
            {
                return;
            }
            switch (typeId)
            {
                case CounterTypes.INFLIGHT:
                    add(specs, reader, "mf.inflight", commonTags.and("model", tag(parsed, "model")), MeterSpec.GAUGE, counterId);
                    break;
                case CounterTypes.INFLIGHT_TOKENS:
                    add(specs, reader, "mf.inflight.tokens", commonTags.and("model", tag(parsed, "model")), MeterSpec.GAUGE,
                        counterId);
                    break;
                case CounterTypes.SELECTED:
                    add(specs, reader, "mf.selected",
                        commonTags.and("decision", tag(parsed, "decision"), "model", tag(parsed, "model")),
                        MeterSpec.COUNTER, counterId);
                    add(specs, reader, "mf.selections",
                        commonTags.and("decision", tag(parsed, "decision"), "outcome", tag(parsed, "outcome")),
                        MeterSpec.COUNTER, counterId);
                    break;
                case CounterTypes.SELECTIONS:
                    add(specs, reader, "mf.selections",
                        commonTags.and("decision", tag(parsed, "decision"), "outcome", tag(parsed, "outcome")),
                        MeterSpec.COUNTER, counterId);
                    break;
                case CounterTypes.DROPS:
                    add(specs, reader, "mf.drops",
                        commonTags.and("model", tag(parsed, "model"), "reason", tag(parsed, "reason")),
                        MeterSpec.COUNTER, counterId);
                    break;
                case CounterTypes.SAMPLES_REFUSED:
                case CounterTypes.SAMPLES_CLAMPED:
                    add(specs, reader, parsed.name(),
                        commonTags.and("model", tag(parsed, "model"), "metric", tag(parsed, "metric")),
                        MeterSpec.COUNTER, counterId);
                    break;
                case CounterTypes.LEASES_HEALED:
                    add(specs, reader, "mf.leases.healed", commonTags.and("model", tag(parsed, "model")),
                        MeterSpec.COUNTER, counterId);
                    break;
                case CounterTypes.LATENCY:
                    add(specs, reader, "mf.latency", commonTags.and(
                        "model", tag(parsed, "model"), "metric", tag(parsed, "metric"),
                        "percentile", tag(parsed, "percentile")), MeterSpec.LATENCY_SECONDS, counterId);
                    break;
                case CounterTypes.RELOADS:
                    add(specs, reader, "mf.reloads", commonTags.and("result", tag(parsed, "result")),
                        MeterSpec.COUNTER, counterId);
                    break;
                case CounterTypes.FLEET_EXCHANGES:
                    add(specs, reader, "mf.fleet.exchanges", commonTags.and("result", tag(parsed, "result")),
                        MeterSpec.COUNTER, counterId);
                    break;
                case CounterTypes.EJECTIONS:
                    add(specs, reader, "mf.ejections",
                        commonTags.and("model", tag(parsed, "model"), "cause", tag(parsed, "cause")),
                        MeterSpec.COUNTER, counterId);
                    break;
                case CounterTypes.EJECTED:
                    add(specs, reader, "mf.ejected", commonTags.and("model", tag(parsed, "model")), MeterSpec.FLAG,
                        counterId);
                    break;
                case CounterTypes.FLEET_REPLICAS:
                    add(specs, reader, "mf.fleet.replicas", commonTags, MeterSpec.GAUGE, counterId);
                    break;
                case CounterTypes.SERVER_QUEUE:
                    add(specs, reader, "mf.server.queue", commonTags.and("model", tag(parsed, "model")),
                        MeterSpec.GAUGE_OR_MISSING, counterId);
                    break;
                case CounterTypes.SERVER_KV_CACHE:
                    add(specs, reader, "mf.server.kv_cache", commonTags.and("model", tag(parsed, "model")),
                        MeterSpec.MILLIONTHS, counterId);
                    break;
                case CounterTypes.SERVER_SCRAPES:
                    add(specs, reader, "mf.server.scrapes",
                        commonTags.and("backend", tag(parsed, "backend"), "result", tag(parsed, "result")),
                        MeterSpec.COUNTER, counterId);
                    break;
                case CounterTypes.SERVER_FRESH:
                    add(specs, reader, "mf.server.fresh", commonTags.and("backend", tag(parsed, "backend")),
                        MeterSpec.GAUGE, counterId);
                    break;
                case CounterTypes.SESSIONS:
                    add(specs, reader, "mf.sessions",
                        commonTags.and("decision", tag(parsed, "decision"), "rule", tag(parsed, "rule")),
                        MeterSpec.COUNTER, counterId);
                    break;
                case CounterTypes.SESSIONS_LIVE:
                    add(specs, reader, "mf.sessions.live", commonTags.and("decision", tag(parsed, "decision")),
                        MeterSpec.GAUGE, counterId);
                    break;
                default:
                    break;
            }
        });
        return specs;
    }

    private static String tag(final CounterLabel label, final String key)
    {
        final String value = label.tag(key);
        return value == null ? "" : value;
    }

    private static void add(
        final Map<String, MeterSpec> specs,
        final CountersReader reader,
        final String name,
        final Tags tags,
        final int kind,
        final int counterId)
    {
        final String key = MeterSpec.key(name, tags);
        final MeterSpec existing = specs.get(key);
        specs.put(key, existing == null ? new MeterSpec(reader, name, tags, kind, new int[] {counterId}) :
            existing.plus(counterId));
    }
}
