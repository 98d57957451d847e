package io.multifactor.tools;

import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SessionPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bin/mf stat} with sessions: the {@code SESSION_DECISION} table of live entries, rules and evictions. */
class StatSessionsTest
{
    @TempDir
    Path dir;

    @Test
    void shouldShowEachSessionDecisionsLiveEntriesRulesAndEvictions()
    {
        final Path file = dir.resolve("sessions.counters");
        final Plans plans = new PlansBuilder().model("premium", 0.9, 10.0).model("economy", 0.1, 1.0)
            .decision("chat").candidates("premium", "economy")
            .session(new SessionPolicy(0.1, 0.05, 1, TimeUnit.MINUTES.toNanos(5), 2)).add()
            .decision("plain").candidates("premium", "economy").add()
            .build();
        try (MultiFactorEngine engine = MultiFactorEngine.builder(plans).countersFile(file).build())
        {
            final Request request = new Request().decision(engine.decisionId("chat"));
            final Selection selection = new Selection();
            for (final long key : new long[] {1, 1, 1, 2, 3})
            {
                engine.select(request.session(key), selection);
            }
            // A key on a decision without a session block is ignored: no row for it.
            engine.select(new Request().decision(engine.decisionId("plain")).session(1), selection);
            engine.refreshNow();

            final CliRun run = CliRun.of("stat", "--counters-file", file.toString());
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.out()).contains("SESSION_DECISION  LIVE  NEW  STAY  SWITCH  HANDOFF  EVICTED");
            // max_sessions 2: the third key forgot the least recently seen one.
            assertThat(run.out()).containsPattern("\nchat +2 +3 +2 +0 +0 +1 *\n");
            assertThat(run.out()).doesNotContainPattern("\nplain +\\d+ +\\d+ +\\d+ +\\d+ +\\d+ +\\d+ *\n");
        }
    }
}
