package io.multifactor.tools.report;

import io.multifactor.sim.FleetReport;

import java.util.Locale;

/**
 * The text report of {@code bin/mf simulate --replicas N}: per model the largest fleet-wide in-flight count against
 * {@code max_inflight} and the share of traffic, the SLO attainment, and per replica its requests and attainment; side
 * by side for a fleet run and an isolated run of the same seed, or one run alone.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class FleetTextReport
{
    private FleetTextReport()
    {
    }

    /**
     * @param fleetOrNull the run with shared signals, or null.
     * @param isolated the run where each replica sees only its own requests.
     * @return the report, lines ending with a newline.
     */
    public static String compare(final FleetReport fleetOrNull, final FleetReport isolated)
    {
        final StringBuilder out = new StringBuilder();
        final boolean both = fleetOrNull != null;
        out.append(String.format(Locale.ROOT, "%-18s %12s  %-22s %-22s %-18s%n", "model", "max_inflight",
            both ? "peak in flight (fleet)" : "peak in flight", both ? "isolated" : "", both ? "traffic fleet/isol." :
                "traffic"));
        for (int m = 0; m < isolated.modelNames().size(); m++)
        {
            final String ceiling = isolated.maxInflight()[m] == 0 ? "-" : Long.toString(isolated.maxInflight()[m]);
            out.append(String.format(Locale.ROOT, "%-18s %12s  %-22s %-22s %-18s%n", isolated.modelNames().get(m),
                ceiling, both ? peak(fleetOrNull, m) : peak(isolated, m), both ? peak(isolated, m) : "",
                both ? percent(fleetOrNull.trafficShare(m)) + " / " + percent(isolated.trafficShare(m)) :
                    percent(isolated.trafficShare(m))));
        }
        out.append('\n');
        if (both)
        {
            out.append(String.format(Locale.ROOT, "SLO attainment: fleet %s, isolated %s (%d requests, %d failed / %d " +
                "failed)%n", percent(fleetOrNull.sloAttainment()), percent(isolated.sloAttainment()),
                isolated.requests(), fleetOrNull.failed(), isolated.failed()));
        }
        else
        {
            out.append(String.format(Locale.ROOT, "SLO attainment: %s (%d requests, %d failed)%n",
                percent(isolated.sloAttainment()), isolated.requests(), isolated.failed()));
        }
        out.append("per replica (requests, SLO attainment): ");
        for (int r = 0; r < isolated.replicas(); r++)
        {
            out.append(r == 0 ? "" : "; ").append("r").append(r + 1).append(' ')
                .append(isolated.replicaRequests()[r]).append(' ');
            if (both)
            {
                out.append(percent(share(fleetOrNull.replicaSloMet()[r], fleetOrNull.replicaRequests()[r])))
                    .append(" / ");
            }
            out.append(percent(share(isolated.replicaSloMet()[r], isolated.replicaRequests()[r])));
        }
        out.append('\n');
        // No trailing blanks from the padded columns.
        return out.toString().replaceAll("[ ]+\n", "\n");
    }

    /**
     * @param without a run whose engines had no model-server signals.
     * @param with the same run (same seed, same replicas) with them.
     * @return per model the traffic share and the largest fleet-wide in-flight count, then the p99 TTFT and the SLO
     *     attainment, without and with the server signals side by side; lines ending with a newline.
     */
    public static String serverSignals(final FleetReport without, final FleetReport with)
    {
        final StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-18s %-24s %-24s%n", "model", "traffic without/with",
            "peak in flight without/with"));
        for (int m = 0; m < without.modelNames().size(); m++)
        {
            out.append(String.format(Locale.ROOT, "%-18s %-24s %-24s%n", without.modelNames().get(m),
                percent(without.trafficShare(m)) + " / " + percent(with.trafficShare(m)),
                without.peakFleetInflight()[m] + " / " + with.peakFleetInflight()[m]));
        }
        out.append('\n');
        out.append(String.format(Locale.ROOT, "p99 TTFT: without %s, with %s%n", ms(without.figures().p99TtftMs()),
            ms(with.figures().p99TtftMs())));
        out.append(String.format(Locale.ROOT, "SLO attainment: without %s, with %s (%d requests, %d failed / %d " +
            "failed)%n", percent(without.sloAttainment()), percent(with.sloAttainment()), without.requests(),
            without.failed(), with.failed()));
        return out.toString().replaceAll("[ ]+\n", "\n");
    }

    private static String ms(final double value)
    {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.0f ms", value);
    }

    private static String peak(final FleetReport report, final int model)
    {
        final long overshoot = report.overshoot(model);
        return report.peakFleetInflight()[model] + (report.maxInflight()[model] == 0 ? "" :
            overshoot == 0 ? " (within)" : " (+" + overshoot + ")");
    }

    private static double share(final long part, final long whole)
    {
        return whole == 0 ? 1.0 : (double)part / whole;
    }

    private static String percent(final double share)
    {
        return String.format(Locale.ROOT, "%.1f%%", 100.0 * share);
    }
}
