package io.multifactor.sim;

import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.multifactor.sim.ExampleFixture.FAST;
import static io.multifactor.sim.ExampleFixture.STRONG;
import static org.assertj.core.api.Assertions.assertThat;

class SimulatorTest
{
    private static final long WINDOW_S = 30;

    @Test
    void shouldGiveTheSameFiguresForTheSameSeed()
    {
        final String first = transcript(ExampleFixture.profile());
        final String second = transcript(ExampleFixture.profile());
        final String otherSeed = transcript(ExampleFixture.profile().withSeed(43));

        assertThat(second).isEqualTo(first);
        assertThat(otherSeed).isNotEqualTo(first);
    }

    @Test
    void shouldShiftAwayFromADegradedModelAndReturnOnlyOnceItsSlowSamplesAgedOut()
    {
        final SimulationProfile profile = ExampleFixture.profile().withIntervalS(1);
        final double degradedFromS = profile.models().get(STRONG).degradedFromS();
        final double recoveredAtS = profile.models().get(STRONG).degradedUntilS();
        final SimulationReport report =
            new Simulator(ExampleFixture.plans(0.2, true), ExampleFixture.settings(WINDOW_S), profile).run(
                SimulationListener.NONE);
        final List<IntervalRow> rows = report.rows();
        final int strong = report.modelNames().indexOf(STRONG);

        double shareBefore = 0.0;
        int dropped = -1;
        for (int i = 0; i < rows.size(); i++)
        {
            final IntervalRow row = rows.get(i);
            if (row.endS() <= degradedFromS)
            {
                shareBefore += row.selected(strong);
            }
            else if (dropped < 0 && row.startS() >= degradedFromS && row.selected(strong) == 0 && row.sloDrops(strong) > 0)
            {
                dropped = i;
            }
        }
        assertThat(shareBefore).as("strong model's traffic before it degrades").isGreaterThan(50);
        assertThat(dropped).as("an interval where the degraded model gets no traffic").isPositive();
        assertThat(rows.get(dropped).startS()).as("traffic shifts within 10 s of the degradation")
            .isLessThan(degradedFromS + 10);

        int returned = -1;
        double lastSlowStartS = Double.NaN;
        for (int i = dropped; i < rows.size(); i++)
        {
            final IntervalRow row = rows.get(i);
            if (row.selected(strong) > 0)
            {
                returned = i;
                break;
            }
            if (row.p95TtftMs(strong) > 800.0 || row.p95TpotMs(strong) > 200.0)
            {
                lastSlowStartS = row.startS();
            }
        }
        if (Double.isNaN(lastSlowStartS))
        {
            // Its last slow samples landed in the interval that shifted the traffic or just before it.
            lastSlowStartS = rows.get(dropped - 1).startS();
        }
        assertThat(returned).as("traffic returns to the model after it recovers").isPositive();
        final double returnedS = rows.get(returned).startS();
        assertThat(returnedS).as("not before it recovered").isGreaterThanOrEqualTo(recoveredAtS);
        assertThat(rows.get(returned).endS()).as("not before its slow samples aged out of the %d s window", WINDOW_S)
            .isGreaterThan(lastSlowStartS + WINDOW_S - 1);
        assertThat(returnedS).as("but soon after they did").isLessThan(lastSlowStartS + WINDOW_S + 5);

        long lateStrong = 0;
        long lateRequests = 0;
        for (final IntervalRow row : rows.subList(rows.size() - 20, rows.size()))
        {
            lateStrong += row.selected(strong);
            lateRequests += row.requests();
        }
        assertThat((double)lateStrong / lateRequests).as("share back to normal in the last 20 s").isGreaterThan(0.1);
    }

    @Test
    void shouldSendMoreToTheLeastLoadedModelWhenLoadWeighs()
    {
        final SimulationProfile steady = ExampleFixture.profile()
            .withModel(ModelBehaviour.steady(STRONG, 350, 40, 0.25, 16, 0.03));

        final SimulationReport loadIgnored =
            new Simulator(ExampleFixture.plans(0.0, false), ExampleFixture.settings(WINDOW_S), steady).run(
                SimulationListener.NONE);
        final SimulationReport loadWeighs =
            new Simulator(ExampleFixture.plans(1.0, false), ExampleFixture.settings(WINDOW_S), steady).run(
                SimulationListener.NONE);

        final int fast = loadIgnored.modelNames().indexOf(FAST);
        final int strong = loadIgnored.modelNames().indexOf(STRONG);
        final int leastLoaded = meanInflight(loadIgnored, fast) < meanInflight(loadIgnored, strong) ? fast : strong;
        final int other = leastLoaded == fast ? strong : fast;

        assertThat(loadWeighs.share(leastLoaded)).as("share of the least-loaded model")
            .isGreaterThan(loadIgnored.share(leastLoaded) + 0.05);
        assertThat(Math.abs(meanInflight(loadWeighs, leastLoaded) - meanInflight(loadWeighs, other)))
            .as("in-flight gap between the models")
            .isLessThan(Math.abs(meanInflight(loadIgnored, leastLoaded) - meanInflight(loadIgnored, other)));
    }

    @Test
    void shouldMeetMoreSlosWithCeilingsOnThanOff()
    {
        final Plans plans = ExampleFixture.plans(0.2, true);

        final SimulationReport on =
            new Simulator(plans, ExampleFixture.settings(WINDOW_S), ExampleFixture.profile(), true).run(
                SimulationListener.NONE);
        final SimulationReport off =
            new Simulator(plans, ExampleFixture.settings(WINDOW_S), ExampleFixture.profile(), false).run(
                SimulationListener.NONE);

        assertThat(on.requests()).isEqualTo(off.requests());
        assertThat(on.sloAttainment()).isGreaterThan(off.sloAttainment());
        assertThat(off.sloDrops(off.modelNames().indexOf(STRONG))).as("no ceiling drops anything when off").isZero();
    }

    private static double meanInflight(final SimulationReport report, final int model)
    {
        double sum = 0.0;
        for (final IntervalRow row : report.rows())
        {
            sum += row.inflight(model);
        }
        return sum / report.rows().size();
    }

    @Test
    void shouldKeepEveryModelWithinMaxInflightWhenTheDecisionFailsRatherThanFallsBack()
    {
        // 12 requests/s of about 6 s each: some 70 in flight against a ceiling of 4 per model.
        final Map<String, Double> shares = new LinkedHashMap<>();
        shares.put("capped", 1.0);
        final SimulationProfile profile = new SimulationProfile(30, 5, 42, 12, 500, 150, 0.5, shares,
            ExampleFixture.profile().models());
        final SimulationReport failing = new Simulator(capped(NoCandidatesPolicy.FAIL), ExampleFixture.settings(WINDOW_S),
            profile).run(SimulationListener.NONE);
        final SimulationReport fallingBack = new Simulator(capped(NoCandidatesPolicy.CHEAPEST),
            ExampleFixture.settings(WINDOW_S), profile).run(SimulationListener.NONE);

        for (int m = 0; m < failing.modelNames().size(); m++)
        {
            assertThat(failing.peakInflight(m)).as(failing.modelNames().get(m)).isEqualTo(4);
        }
        assertThat(failing.failed()).isPositive();
        assertThat(fallingBack.failed()).isZero();
        assertThat(fallingBack.peakInflight(fallingBack.modelNames().indexOf(FAST))).as("the fallback pick")
            .isGreaterThan(4);
        assertThat(fallingBack.peakInflight(fallingBack.modelNames().indexOf(STRONG))).isEqualTo(4);
    }

    private static Plans capped(final int policy)
    {
        return new PlansBuilder()
            .model(FAST, 0.6, 0.5, 1.5)
            .model(STRONG, 0.95, 5.0, 15.0)
            .decision("capped").candidates(STRONG, FAST).weights(0.4, 0.2, 0.2, 0.2).slo(0, 0, 0, 4).policy(policy).add()
            .build();
    }

    /** Every figure of every interval and of the summary, exactly (the text and CSV writers live in mf-tools). */
    private static String transcript(final SimulationProfile profile)
    {
        final Simulator simulator = new Simulator(ExampleFixture.plans(0.2, true), ExampleFixture.settings(WINDOW_S), profile);
        final StringBuilder text = new StringBuilder(String.valueOf(simulator.modelNames())).append('\n');
        final SimulationReport report = simulator.run(new SimulationListener()
        {
            @Override
            public void onInterval(final IntervalRow row)
            {
                text.append(row.startS()).append(' ').append(row.endS()).append(' ').append(row.requests()).append(' ')
                    .append(row.failed()).append(' ').append(row.fallbacks());
                for (int m = 0; m < row.modelNames().size(); m++)
                {
                    text.append(" | ").append(row.selected(m)).append(' ').append(row.share(m)).append(' ')
                        .append(row.sloDrops(m)).append(' ').append(row.p95TtftMs(m)).append(' ')
                        .append(row.p95TpotMs(m)).append(' ').append(row.inflight(m));
                }
                text.append('\n');
            }
        });
        text.append(report.requests()).append(' ').append(report.failed()).append(' ').append(report.fallbacks())
            .append(' ').append(report.sloMet()).append(' ').append(report.costUsd()).append('\n');
        return text.toString();
    }
}
