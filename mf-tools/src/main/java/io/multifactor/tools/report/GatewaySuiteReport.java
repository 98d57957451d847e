package io.multifactor.tools.report;

import io.multifactor.sim.suite.ScenarioResult;
import io.multifactor.sim.suite.SuiteColumn;

import java.util.Locale;

/**
 * The tables of {@code bin/mf compare --suite DIR --through-gateway}: per scenario run through the gateway a heading
 * (marked "through the gateway", with the rate, the seed and the seconds of load), the table in the simulator's shape
 * ({@link SuiteTextReport#table}, one seed per row), a line with the requests each run sent and the gateway's
 * in-flight count after each run's drain, and a line that sets each policy's SLO attainment beside its simulator
 * figure.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class GatewaySuiteReport
{
    private GatewaySuiteReport()
    {
    }

    /**
     * @param gateway the runs through the gateway, one seed per row.
     * @param simulated the simulator's result of the same scenario (same rows).
     * @param ratePerS arrivals per second of each run.
     * @param runS seconds of arrivals of each run.
     * @param measuredFromS seconds of each run's warm-up.
     * @param sent requests each run sent.
     * @param measured of them, those measured.
     * @param inflightAfter per row, the gateway's in-flight requests after the run's drain.
     * @return the heading, the table and the two lines, each ending with a newline.
     */
    public static String render(final ScenarioResult gateway, final ScenarioResult simulated, final double ratePerS,
        final double runS, final double measuredFromS, final int sent, final int measured, final long[] inflightAfter)
    {
        final StringBuilder out = new StringBuilder();
        final double knee = gateway.knee().ratePerS();
        out.append(String.format(Locale.ROOT, "%s through the gateway: %.1f requests/s (%s), seed 1, %.0f s of load " +
            "(the first %.1f s not measured), bin/mf serve's gateway and fake servers on loopback%n",
            gateway.scenario().name(), ratePerS, ratePerS == knee ? "the simulator's knee" :
            String.format(Locale.ROOT, "--gateway-rate; the simulator's knee %.1f", knee), runS, measuredFromS));
        out.append(SuiteTextReport.table(gateway));
        final StringBuilder leaks = new StringBuilder();
        for (int p = 0; p < inflightAfter.length; p++)
        {
            if (inflightAfter[p] != 0)
            {
                leaks.append(leaks.length() == 0 ? "" : ", ").append(gateway.policies().get(p)).append(' ')
                    .append(inflightAfter[p]);
            }
        }
        out.append(String.format(Locale.ROOT, "each run: %d requests sent, %d measured; the gateway's in flight after " +
            "each run's drain: %s%n", sent, measured, leaks.length() == 0 ? "0" : "NOT 0: " + leaks));
        out.append("SLO attainment through the gateway (the simulator's range over its seeds):");
        for (int p = 0; p < gateway.policies().size(); p++)
        {
            final String policy = gateway.policies().get(p);
            final int row = simulated.policies().indexOf(policy);
            out.append(p == 0 ? " " : "; ").append(policy).append(' ')
                .append(SuiteTextReport.range(gateway, p, SuiteColumn.SLO_ATTAINMENT)).append(" (")
                .append(row < 0 ? "-" : SuiteTextReport.range(simulated, row, SuiteColumn.SLO_ATTAINMENT)).append(')');
        }
        return out.append('\n').toString();
    }
}
