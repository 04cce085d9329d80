package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.learn.PaceSchedule;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What a new run makes of the pace a store kept: the curve starts again from now, a confirmed plateau on it. */
class RestartedKnowledgeTest {

    private static final long T = 1_800_000_000_000L;

    @Test
    void aCubicCurveStartsAgainFromItsDip() {
        PaceSchedule pace = restart(new PaceSchedule(5, T - 600_000, 60_000)).pace().get();
        assertEquals(T, pace.epochMillis());
        assertEquals(0.8 * 5, pace.rate(T, 0.8), 1e-9, "a run that stopped has not been probing: from headroom of the rate refused");
    }

    @Test
    void aConfirmedPlateauStartsAgainOnThePlateau() {
        PaceSchedule pace = restart(new PaceSchedule(5, T - 600_000, 60_000, 50_000)).pace().get();
        assertEquals(new PaceSchedule(5, T, 60_000, 50_000), pace);
        assertEquals(5, pace.rate(T, 0.8), 1e-9, "the rate refused twice is the limit: no dip below it");
        assertEquals(5, pace.rate(T + 50_000, 0.8), 1e-9, "on the plateau as long as it was to stay...");
        assertEquals(5 * Math.pow(2, 0.2), pace.rate(T + 53_000, 0.8), 1e-9, "...then probing, as in the run that learned it");
    }

    private static HostKnowledge restart(PaceSchedule pace) {
        return HostKnowledge.of(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), Optional.empty(), Optional.of(pace),
                OptionalLong.of(T - 600_000), OptionalInt.of(50), Optional.empty(), Collections.emptyList(), OptionalLong.empty())
                .restartedAt(T);
    }
}
