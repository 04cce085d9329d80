package dev.retryafter.it.harness;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scenarios every client's own child-JVM test runs, written once: the legacy scraper through the client's fetcher
 * against a lying portal, and the same switched off against a run with no agent. A test names its client, its JVMs
 * (class path and JDK) and its fetcher.
 */
public final class ClientJvmScenarios {

    private ClientJvmScenarios() {
    }

    /**
     * {@code records} from a portal of 10 requests per 2 s whose Retry-After is {@code behaviour}'s, three workers: every
     * record arrives, no worker is sent sooner than {@code minSleepMillis} after its own refusal, each refusal is
     * explained in the log, and the client is neither named ungoverned nor met with an internal failure.
     */
    public static void everyRecordArrivesAndNoWorkerIsSentSoonerThanMinSleep(String client, ChildJvm jvm, Behaviour behaviour,
            String fetcher, String policy, long minSleepMillis, int records) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(behaviour, 10, 2_000))) {
            ScraperRun run = ScraperRun.runAsGiven(jvm, policy, fetcher, portal.baseUrl(), records, "--threads", "3");
            PortalStats stats = portal.stats();
            System.out.println(client + ", " + behaviour + ": " + run.fetched + " of " + records + " fetched, " + stats.requests
                    + " requests, " + stats.refusals + " refusals, shortest gap after a worker's own refusal "
                    + stats.shortestGapAfterOwnRefusalMillis + " ms");

            assertEquals(records, run.fetched, () -> "every record arrives\n" + stats + "\n" + run);
            Inconclusive.unlessRefused(stats.refusals, () -> stats + "\n" + run); // so this test could fail
            MinSleepFloor.assertKept(stats.shortestGapAfterOwnRefusalMillis, minSleepMillis, () -> stats + "\n" + run);
            assertTrue(run.jvm.stderr.contains("Retry-After=\"" + (behaviour == Behaviour.ALWAYS_ZERO ? "0" : "3600") + "\""),
                    () -> "each refusal is explained in the log\n" + run);
            assertFalse(run.jvm.stderr.contains("ungoverned"), () -> client + " is governed: no warning\n" + run);
            assertFalse(run.jvm.stderr.contains("internal failure"), run::toString);
        }
    }

    /** Switched off ({@code enabled = false} in {@code policy}), the portal sees the same requests as with no agent at all. */
    public static void switchedOffTheSameRequestsAsWithoutTheAgent(String client, Supplier<ChildJvm> jvms, String fetcher,
            String policy) throws Exception {
        ScraperRun without;
        long requestsWithout;
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            without = ScraperRun.runAsGiven(jvms.get(), null, fetcher, portal.baseUrl(), 12);
            requestsWithout = portal.stats().requests;
            assertTrue(without.refused > 0, () -> "refusals reach the application\n" + without);
        }
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 60_000))) {
            ScraperRun off = ScraperRun.runAsGiven(jvms.get(), policy + "enabled = false\n", fetcher, portal.baseUrl(), 12);
            long requestsOff = portal.stats().requests;
            System.out.println(client + ", switched off: " + requestsOff + " requests, without the agent " + requestsWithout
                    + "; " + off.fetched + " fetched, " + off.refused + " refused");
            assertEquals(requestsWithout, requestsOff, () -> "the same requests as with no agent at all\n" + off);
            assertEquals(without.fetched, off.fetched);
            assertEquals(without.refused, off.refused);
            assertTrue(off.jvm.stderr.contains("off (enabled=false"), () -> "says it is off\n" + off);
        }
    }

    /** One run of a test application's {@code main} with the agent attached, on {@code policy}. */
    public static ChildJvm.Result app(ChildJvm jvm, String policy, String mainClass, String... args) throws Exception {
        Path file = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
        Files.writeString(file, policy);
        return jvm.withAgent("config=" + file).main(mainClass, args).run();
    }
}
