package dev.retryafter.it.harness;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A run that could not test what it is for. A portal limits requests per second: a machine busy
 * enough sends fewer, is never refused, and has shown nothing about refusals either way. That run is
 * reported as skipped, with a banner, rather than failed (the machine's speed is no verdict on the
 * agent) or passed (nothing was checked).
 */
public final class Inconclusive {

    private Inconclusive() {
    }

    /**
     * Skips, loudly, a run that saw fewer than {@code needed} of {@code what} (a machine so busy that the
     * run tested too little): its verdict would be no evidence either way.
     */
    public static void unlessEnough(long seen, long needed, String what, Supplier<String> run) {
        if (seen < needed) {
            System.err.println("\n!!!!!!!! INCONCLUSIVE: " + seen + " " + what + ", fewer than the " + needed + " needed to judge (a busy"
                    + " machine); it is SKIPPED:\n" + run.get() + "\n!!!!!!!!\n");
        }
        assumeTrue(seen >= needed, () -> seen + " " + what + ": inconclusive, not a verdict\n" + run.get());
    }

    public static void unlessRefused(long refusals, Supplier<String> run) {
        if (refusals <= 0) {
            System.err.println("\n!!!!!!!! INCONCLUSIVE: the portal refused nothing, so this run tested nothing (a busy machine"
                    + " sends fewer requests a second than the portal allows); it is SKIPPED:\n" + run.get() + "\n!!!!!!!!\n");
        }
        assumeTrue(refusals > 0, () -> "the portal refused nothing: inconclusive, not a verdict\n" + run.get());
    }
}
