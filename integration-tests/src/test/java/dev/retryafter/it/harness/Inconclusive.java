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

    public static void unlessRefused(long refusals, Supplier<String> run) {
        if (refusals <= 0) {
            System.err.println("\n!!!!!!!! INCONCLUSIVE: the portal refused nothing, so this run tested nothing (a busy machine"
                    + " sends fewer requests a second than the portal allows); it is SKIPPED:\n" + run.get() + "\n!!!!!!!!\n");
        }
        assumeTrue(refusals > 0, () -> "the portal refused nothing: inconclusive, not a verdict\n" + run.get());
    }
}
