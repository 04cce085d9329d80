package dev.retryafter.it.bench;

import dev.retryafter.demo.portal.Behaviour;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fleet in virtual time ({@link VirtualFleetRun}): engines sharing one store reach 0.9 of the
 * portal's limit together, refuse under 2% after the first windows, lose nothing, and finish within
 * 25% of each other; without the store, the same fleet is printed beside it. Before the store
 * counted every engine's successes, the shared fleet reached 0.42 (three) and 0.36 (five).
 */
class VirtualFleetTest {

    @ParameterizedTest(name = "{0} engines, {1}")
    @CsvSource({"3, ALWAYS_ZERO, 100", "3, CONSTANT_OVERSTATED, 100", "3, ABSENT, 100",
            "5, ALWAYS_ZERO, 60", "5, CONSTANT_OVERSTATED, 60", "5, ABSENT, 60"})
    void enginesSharingOneStoreUseTheLimitTogether(int jvms, Behaviour behaviour, int records) {
        VirtualFleetRun.Result alone = VirtualFleetRun.run(jvms, behaviour, false, records, 7);
        VirtualFleetRun.Result fleet = VirtualFleetRun.run(jvms, behaviour, true, records, 7);
        String both = behaviour + "\n  " + alone.line("alone") + "\n  " + fleet.line("shared");
        System.out.println(both);
        assertEquals(0, fleet.lostRecords(), both);
        assertTrue(fleet.efficiency() >= 0.9, both);
        assertTrue(fleet.refusedAfterFirstWindows() <= 0.02, both);
        assertTrue(fleet.spread() <= 0.25, both);
    }
}
