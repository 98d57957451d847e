package io.multifactor.tools.report;

import io.multifactor.api.Outcome;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code bin/mf stat} table: one snapshot of an engine's counters, read through a {@link CountersReader} (in this
 * process or over another process's counters file), as three tables (decisions, decision by chosen model, models,
 * with each model's in-flight requests and tokens, each ejected model's time left as of the engine's last refresh and
 * its ejections by cause), two more when model servers are scraped (per model the queue and KV-cache use, per backend its freshness and scrapes), one of sessions per decision with a {@code session} block (live entries, requests by rule, evictions), one of
 * prefix-cache affinity per backend when a serving process counts it (choices by result, prompt blocks looked up and
 * matched, and their ratio, the hit rate) and the engine-wide counts. Retired counters and labels that do not parse are left out.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class StatReport
{
    /** The rules of {@code mf.sessions}, in the columns' order. */
    private static final List<String> SESSION_RULES = List.of("new", "stay", "switch", "handoff", "evicted");

    /** The results of {@code mf.prefix.choices}, in the columns' order. */
    private static final List<String> PREFIX_RESULTS = List.of("warm", "cold", "release");

    private StatReport()
    {
    }

    /**
     * @param reader the counters.
     * @return the tables, each line ending with a newline.
     */
    public static String format(final CountersReader reader)
    {
        final Snapshot snapshot = Snapshot.read(reader);
        final StringBuilder out = new StringBuilder();
        decisions(out, snapshot);
        out.append('\n');
        selected(out, snapshot);
        out.append('\n');
        models(out, snapshot);
        out.append('\n');
        if (!snapshot.serverModels.isEmpty() || !snapshot.backends.isEmpty())
        {
            servers(out, snapshot);
            out.append('\n');
        }
        if (!snapshot.sessions.isEmpty())
        {
            sessions(out, snapshot);
            out.append('\n');
        }
        if (!snapshot.prefixes.isEmpty())
        {
            prefixes(out, snapshot);
            out.append('\n');
        }
        engine(out, snapshot);
        return out.toString();
    }

    // Per decision with a session block: live entries, requests by rule, entries evicted.
    private static void sessions(final StringBuilder out, final Snapshot snapshot)
    {
        final Table table = new Table("SESSION_DECISION", "LIVE", "NEW", "STAY", "SWITCH", "HANDOFF", "EVICTED");
        for (final Map.Entry<String, long[]> entry : snapshot.sessions.entrySet())
        {
            final long[] row = entry.getValue();
            table.row(entry.getKey(), Long.toString(row[0]), Long.toString(row[1]), Long.toString(row[2]),
                Long.toString(row[3]), Long.toString(row[4]), Long.toString(row[5]));
        }
        table.appendTo(out);
    }

    // Per backend under prefix-cache affinity: choices by result, blocks looked up and matched, the hit rate.
    private static void prefixes(final StringBuilder out, final Snapshot snapshot)
    {
        final Table table = new Table("PREFIX_BACKEND", "WARM", "COLD", "RELEASE", "BLOCKS_LOOKED_UP", "BLOCKS_MATCHED",
            "HIT_RATE");
        for (final Map.Entry<String, long[]> entry : snapshot.prefixes.entrySet())
        {
            final long[] row = entry.getValue();
            table.row(entry.getKey(), Long.toString(row[0]), Long.toString(row[1]), Long.toString(row[2]),
                Long.toString(row[3]), Long.toString(row[4]),
                row[3] == 0 ? "-" : String.format(Locale.ROOT, "%.3f", (double)row[4] / row[3]));
        }
        table.appendTo(out);
    }

    private static void decisions(final StringBuilder out, final Snapshot snapshot)
    {
        final Table table = new Table("DECISION", "SELECTIONS", "SCORED", "FALLBACK_CHEAPEST", "FALLBACK_FIRST", "FAILED",
            "INELIGIBLE", "SHED");
        for (final Map.Entry<String, long[]> entry : snapshot.outcomesByDecision.entrySet())
        {
            final long[] counts = entry.getValue();
            long total = 0;
            for (final long count : counts)
            {
                total += count;
            }
            table.row(entry.getKey(), Long.toString(total), Long.toString(counts[Outcome.SCORED]),
                Long.toString(counts[Outcome.FALLBACK_CHEAPEST]), Long.toString(counts[Outcome.FALLBACK_FIRST]),
                Long.toString(counts[Outcome.FAILED]), Long.toString(counts[Outcome.INELIGIBLE]),
                Long.toString(counts[Outcome.SHED]));
        }
        table.appendTo(out);
    }

    private static void selected(final StringBuilder out, final Snapshot snapshot)
    {
        final Table table = new Table("DECISION", "MODEL", "SELECTED", "SHARE");
        for (final Map.Entry<String, Map<String, Long>> decision : snapshot.selectedByDecision.entrySet())
        {
            long total = 0;
            for (final long count : decision.getValue().values())
            {
                total += count;
            }
            for (final Map.Entry<String, Long> model : decision.getValue().entrySet())
            {
                final long count = model.getValue();
                table.row(decision.getKey(), model.getKey(), Long.toString(count),
                    total == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * count / total));
            }
        }
        table.appendTo(out);
    }

    private static void models(final StringBuilder out, final Snapshot snapshot)
    {
        final Table table = new Table(
            "MODEL", "INFLIGHT", "INFLIGHT_TOKENS", "TPOT_MS", "TTFT_MS", "DROPPED", "DROPS_BY_REASON", "REFUSED", "CLAMPED", "HEALED",
            "EJECTED", "EJECTIONS");
        for (final Map.Entry<String, ModelRow> entry : snapshot.models.entrySet())
        {
            final ModelRow row = entry.getValue();
            long dropped = 0;
            final StringBuilder reasons = new StringBuilder();
            for (final Map.Entry<String, Long> reason : row.drops.entrySet())
            {
                dropped += reason.getValue();
                if (reason.getValue() > 0)
                {
                    reasons.append(reasons.length() == 0 ? "" : " ").append(reason.getKey()).append('=')
                        .append(reason.getValue());
                }
            }
            table.row(entry.getKey(), Long.toString(row.inflight),
                row.inflightTokens < 0 ? "-" : Long.toString(row.inflightTokens), latency(row.tpot), latency(row.ttft),
                Long.toString(dropped), reasons.length() == 0 ? "-" : reasons.toString(), Long.toString(row.refused),
                Long.toString(row.clamped), Long.toString(row.healed), ejected(row), ejections(row));
        }
        table.appendTo(out);
    }

    private static void servers(final StringBuilder out, final Snapshot snapshot)
    {
        final Table models = new Table("SERVER_MODEL", "QUEUE", "KV_CACHE");
        for (final Map.Entry<String, long[]> entry : snapshot.serverModels.entrySet())
        {
            final long queue = entry.getValue()[0];
            final long kvMillionths = entry.getValue()[1];
            models.row(entry.getKey(), queue < 0 ? "-" : Long.toString(queue),
                kvMillionths < 0 ? "-" : String.format(Locale.ROOT, "%.3f", kvMillionths / 1_000_000.0));
        }
        models.appendTo(out);
        out.append('\n');
        final Table backends = new Table("BACKEND", "FRESH", "SCRAPES_OK", "FAILED", "REFUSED");
        for (final Map.Entry<String, long[]> entry : snapshot.backends.entrySet())
        {
            final long[] row = entry.getValue();
            backends.row(entry.getKey(), row[0] == 1 ? "yes" : "no", Long.toString(row[1]), Long.toString(row[2]),
                Long.toString(row[3]));
        }
        backends.appendTo(out);
    }

    // "-" for a model without reliability or not ejected; the time left as of the engine's last refresh otherwise.
    private static String ejected(final ModelRow row)
    {
        if (row.ejectedMs == CounterTypes.EJECTED_PROBING)
        {
            return "probe_out";
        }
        return row.ejectedMs > 0 ? String.format(Locale.ROOT, "%.1fs_left", row.ejectedMs / 1000.0) : "-";
    }

    private static String ejections(final ModelRow row)
    {
        if (row.ejections.isEmpty())
        {
            return "-";
        }
        final StringBuilder text = new StringBuilder();
        for (final Map.Entry<String, Long> cause : row.ejections.entrySet())
        {
            text.append(text.length() == 0 ? "" : " ").append(cause.getKey()).append('=').append(cause.getValue());
        }
        return text.toString();
    }

    private static String latency(final Map<Integer, Long> microsByPercentile)
    {
        if (microsByPercentile.isEmpty())
        {
            return "-";
        }
        final StringBuilder text = new StringBuilder();
        for (final Map.Entry<Integer, Long> entry : microsByPercentile.entrySet())
        {
            text.append(text.length() == 0 ? "" : " ").append('p').append(entry.getKey()).append('=');
            final long micros = entry.getValue();
            text.append(micros < 0 ? "-" : String.format(Locale.ROOT, "%.1f", micros / 1000.0));
        }
        return text.toString();
    }

    private static void engine(final StringBuilder out, final Snapshot snapshot)
    {
        out.append(String.format(Locale.ROOT,
            "reloads: applied %d, refused %d   fleet: exchanges done %d, failed %d, remote replicas %d%n",
            snapshot.scalar("mf.reloads{result=\"applied\"}"), snapshot.scalar("mf.reloads{result=\"refused\"}"),
            snapshot.scalar("mf.fleet.exchanges{result=\"done\"}"), snapshot.scalar("mf.fleet.exchanges{result=\"failed\"}"),
            snapshot.scalar("mf.fleet.replicas")));
        out.append(String.format(Locale.ROOT,
            "samples: refused %d, clamped %d   leases: reclaimed %d, table full %d%n",
            snapshot.scalar("mf.engine.samples_refused"), snapshot.scalar("mf.engine.samples_clamped"),
            snapshot.scalar("mf.engine.leases_reclaimed"), snapshot.scalar("mf.engine.lease_table_full")));
    }

    /** The per-model columns. */
    private static final class ModelRow
    {
        long inflight;
        /** The weights of its live leases ({@code mf.inflight.tokens}); -1 when the file has no such counter. */
        long inflightTokens = -1;
        long refused;
        long clamped;
        long healed;
        long ejectedMs;
        final Map<String, Long> ejections = new TreeMap<>();
        final Map<String, Long> drops = new TreeMap<>();
        final Map<Integer, Long> tpot = new TreeMap<>();
        final Map<Integer, Long> ttft = new TreeMap<>();
    }

    /** The live counters, grouped. */
    private static final class Snapshot
    {
        final Map<String, long[]> outcomesByDecision = new TreeMap<>();
        final Map<String, Map<String, Long>> selectedByDecision = new TreeMap<>();
        final Map<String, ModelRow> models = new TreeMap<>();
        final Map<String, Long> scalars = new TreeMap<>();
        /** Per model with server signals: queue, KV-cache millionths (-1 = missing). */
        final Map<String, long[]> serverModels = new TreeMap<>();
        /** Per backend origin: fresh (0/1), scrapes ok, failed, refused. */
        final Map<String, long[]> backends = new TreeMap<>();
        /** Per decision with sessions: live, new, stay, switch, handoff, evicted. */
        final Map<String, long[]> sessions = new TreeMap<>();
        /** Per backend under prefix-cache affinity: warm, cold, release, blocks looked up, blocks matched. */
        final Map<String, long[]> prefixes = new TreeMap<>();

        static Snapshot read(final CountersReader reader)
        {
            final Snapshot snapshot = new Snapshot();
            reader.forEach((counterId, typeId, keyBuffer, label) ->
            {
                if (!CounterTypes.isEngineType(typeId) ||
                    keyBuffer.getInt(CounterTypes.KEY_STATE_OFFSET) != CounterTypes.KEY_LIVE)
                {
                    return;
                }
                final CounterLabel parsed = CounterLabel.parse(label);
                if (parsed != null)
                {
                    snapshot.add(typeId, parsed, label, reader.getCounterValue(counterId));
                }
            });
            return snapshot;
        }

        long scalar(final String label)
        {
            return scalars.getOrDefault(label, 0L);
        }

        private ModelRow model(final CounterLabel label)
        {
            return models.computeIfAbsent(String.valueOf(label.tag("model")), name -> new ModelRow());
        }

        private void add(final int typeId, final CounterLabel label, final String raw, final long value)
        {
            switch (typeId)
            {
                case CounterTypes.SELECTED:
                    outcomes(label.tag("decision"))[outcomeIndex(label.tag("outcome"))] += value;
                    selectedByDecision.computeIfAbsent(String.valueOf(label.tag("decision")), d -> new TreeMap<>())
                        .merge(String.valueOf(label.tag("model")), value, Long::sum);
                    break;
                case CounterTypes.SELECTIONS:
                    outcomes(label.tag("decision"))[outcomeIndex(label.tag("outcome"))] += value;
                    break;
                case CounterTypes.INFLIGHT:
                    model(label).inflight = value;
                    break;
                case CounterTypes.INFLIGHT_TOKENS:
                    model(label).inflightTokens = value;
                    break;
                case CounterTypes.DROPS:
                    model(label).drops.merge(String.valueOf(label.tag("reason")), value, Long::sum);
                    break;
                case CounterTypes.SAMPLES_REFUSED:
                    model(label).refused += value;
                    break;
                case CounterTypes.SAMPLES_CLAMPED:
                    model(label).clamped += value;
                    break;
                case CounterTypes.LEASES_HEALED:
                    model(label).healed = value;
                    break;
                case CounterTypes.EJECTED:
                    model(label).ejectedMs = value;
                    break;
                case CounterTypes.EJECTIONS:
                    model(label).ejections.merge(String.valueOf(label.tag("cause")), value, Long::sum);
                    break;
                case CounterTypes.LATENCY:
                    final int percentile = parsePercentile(label.tag("percentile"));
                    (("ttft".equals(label.tag("metric"))) ? model(label).ttft : model(label).tpot).put(percentile, value);
                    break;
                case CounterTypes.SERVER_QUEUE:
                    serverModel(label)[0] = value;
                    break;
                case CounterTypes.SERVER_KV_CACHE:
                    serverModel(label)[1] = value;
                    break;
                case CounterTypes.SERVER_FRESH:
                    backend(label)[0] = value;
                    break;
                case CounterTypes.SERVER_SCRAPES:
                    final String result = String.valueOf(label.tag("result"));
                    backend(label)["ok".equals(result) ? 1 : "failed".equals(result) ? 2 : 3] += value;
                    break;
                case CounterTypes.SESSIONS_LIVE:
                    session(label)[0] = value;
                    break;
                case CounterTypes.SESSIONS:
                    final int column = SESSION_RULES.indexOf(String.valueOf(label.tag("rule")));
                    if (column >= 0)
                    {
                        session(label)[1 + column] += value;
                    }
                    break;
                case CounterTypes.PREFIX_CHOICES:
                    final int choice = PREFIX_RESULTS.indexOf(String.valueOf(label.tag("result")));
                    if (choice >= 0)
                    {
                        prefix(label)[choice] += value;
                    }
                    break;
                case CounterTypes.PREFIX_BLOCKS:
                    final String kind = String.valueOf(label.tag("kind"));
                    if ("looked_up".equals(kind) || "matched".equals(kind))
                    {
                        prefix(label)["looked_up".equals(kind) ? 3 : 4] += value;
                    }
                    break;
                default:
                    scalars.put(raw, value);
                    break;
            }
        }

        private long[] prefix(final CounterLabel label)
        {
            return prefixes.computeIfAbsent(String.valueOf(label.tag("backend")), name -> new long[5]);
        }

        private long[] session(final CounterLabel label)
        {
            return sessions.computeIfAbsent(String.valueOf(label.tag("decision")), name -> new long[6]);
        }

        private long[] serverModel(final CounterLabel label)
        {
            return serverModels.computeIfAbsent(String.valueOf(label.tag("model")), name -> new long[] {-1, -1});
        }

        private long[] backend(final CounterLabel label)
        {
            return backends.computeIfAbsent(String.valueOf(label.tag("backend")), name -> new long[4]);
        }

        private long[] outcomes(final String decision)
        {
            return outcomesByDecision.computeIfAbsent(String.valueOf(decision), d -> new long[Outcome.COUNT]);
        }

        // The outcome code of a counter's outcome label; an unknown one counts as failed.
        private static int outcomeIndex(final String outcome)
        {
            for (int code = 0; code < Outcome.COUNT; code++)
            {
                if (Outcome.label(code).equals(outcome))
                {
                    return code;
                }
            }
            return Outcome.FAILED;
        }

        private static int parsePercentile(final String text)
        {
            try
            {
                return Integer.parseInt(String.valueOf(text));
            }
            catch (final NumberFormatException ex)
            {
                return -1;
            }
        }
    }

    /** A left-aligned first column, right-aligned others, widths from the content. */
    private static final class Table
    {
        private final String[] header;
        private final List<String[]> rows = new ArrayList<>();

        Table(final String... header)
        {
            this.header = header;
        }

        void row(final String... cells)
        {
            rows.add(cells);
        }

        void appendTo(final StringBuilder out)
        {
            final int[] widths = new int[header.length];
            for (int c = 0; c < header.length; c++)
            {
                widths[c] = header[c].length();
                for (final String[] row : rows)
                {
                    widths[c] = Math.max(widths[c], row[c].length());
                }
            }
            // Columns of names, reasons or percentiles are left-aligned; columns of counts right-aligned.
            final boolean[] left = new boolean[header.length];
            left[0] = true;
            for (final String[] row : rows)
            {
                for (int c = 1; c < header.length; c++)
                {
                    left[c] |= isText(row[c]);
                }
            }
            line(out, header, widths, left);
            for (final String[] row : rows)
            {
                line(out, row, widths, left);
            }
            if (rows.isEmpty())
            {
                out.append("(none)\n");
            }
        }

        private static void line(final StringBuilder out, final String[] cells, final int[] widths, final boolean[] left)
        {
            final StringBuilder line = new StringBuilder();
            for (int c = 0; c < cells.length; c++)
            {
                if (c > 0)
                {
                    line.append("  ");
                }
                final String cell = cells[c];
                final String pad = " ".repeat(widths[c] - cell.length());
                line.append(left[c] ? cell + pad : pad + cell);
            }
            int end = line.length();
            while (end > 0 && line.charAt(end - 1) == ' ')
            {
                end--;
            }
            out.append(line, 0, end).append('\n');
        }

        private static boolean isText(final String cell)
        {
            for (int i = 0; i < cell.length(); i++)
            {
                final char ch = cell.charAt(i);
                if (!(ch >= '0' && ch <= '9') && ch != '.' && ch != '%' && ch != '-')
                {
                    return true;
                }
            }
            return false;
        }
    }
}
