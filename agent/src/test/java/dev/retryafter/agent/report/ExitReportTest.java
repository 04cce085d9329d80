package dev.retryafter.agent.report;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exit report is owner-only when new, and keeps the mode an operator gave the file it replaces;
 * its JSON reads back with a real parser, every figure under its documented name, the waits by cause.
 */
class ExitReportTest {

    @Test
    void theReportReadsBackWithAJsonParserWithTheWaitsByCause() throws Exception {
        VirtualClock clock = new VirtualClock();
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).random(() -> 0.5)
                .policies(PolicyLookup.everyHost(Policy.builder().startRatePerSecond(1).build())).build();
        for (int status : new int[] {200, 429, 200, 200}) {
            Call call = engine.open("portal.example", 443, true);
            do {
                call.awaitTurn();
                call.onResponse(status, status == 429 ? "2" : null);
                call.endAttempt();
                status = 200;
            } while (call.retryRequested());
        }
        Call quiet = engine.open("quiet \"quoted\".example", 80, true);
        quiet.awaitTurn();
        quiet.onResponse(200, null);
        quiet.endAttempt();
        List<HostSnapshot> snapshots = ExitReport.snapshots(engine.hosts(), clock.millis());
        String text = ExitReport.json(snapshots, clock.millis(), "ungoverned HTTP: \"quotes\" and \\ and\na line");

        JsonObject report = JsonParser.parseString(text).getAsJsonObject();
        assertEquals("retry-after-agent", report.get("agent").getAsString());
        assertEquals("ungoverned HTTP: \"quotes\" and \\ and\na line", report.get("ungoverned").getAsString());
        JsonObject host = report.getAsJsonArray("hosts").get(0).getAsJsonObject();
        HostSnapshot portal = snapshots.get(0);
        assertEquals("portal.example:443", host.get("host").getAsString());
        assertEquals(portal.requests, host.get("requests").getAsLong());
        assertEquals(1, host.get("refusals").getAsLong());
        assertEquals(portal.waitedMillis, host.get("sleptMillis").getAsLong());
        assertEquals(portal.lastDecision().get().waitBeforeNextRequest().reason().name(), host.get("lastReason").getAsString());
        assertTrue(host.get("holdUntil").isJsonNull());
        JsonObject byCause = host.getAsJsonObject("waitedMillisByCause");
        assertFalse(portal.waitedByCause.causes().isEmpty(), portal.waitedByCause::toString);
        assertEquals(portal.waitedByCause.causes().size(), byCause.size(), byCause::toString);
        for (Reason cause : portal.waitedByCause.causes()) {
            assertEquals(portal.waitedByCause.millis(cause), byCause.get(cause.name()).getAsLong(), byCause::toString);
        }
        assertTrue(byCause.has(Reason.PACE.name()), "paced at 1/s: " + byCause);
        assertEquals(0, host.get("wouldRetry").getAsLong());
        assertEquals(0, host.getAsJsonObject("wouldDelayMillisByCause").size());
        assertEquals("quiet \"quoted\".example:80", report.getAsJsonArray("hosts").get(1).getAsJsonObject().get("host").getAsString());
        assertTrue(ExitReport.line(portal).contains("; waited for: "), ExitReport.line(portal));
    }

    @Test
    void aNewReportIsOwnerOnlyAndAReplacedOneKeepsItsMode(@TempDir Path directory) throws Exception {
        Path report = directory.resolve("report.json");
        ExitReport.writeJson(report.toString(), Collections.emptyList(), 0L, null);
        assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(report));

        Set<PosixFilePermission> forTheShipper = PosixFilePermissions.fromString("rw-r-----");
        Files.setPosixFilePermissions(report, forTheShipper);
        ExitReport.writeJson(report.toString(), Collections.emptyList(), 1_000L, null);
        assertEquals(forTheShipper, Files.getPosixFilePermissions(report));
        assertTrue(new String(Files.readAllBytes(report), "UTF-8").contains("\"writtenAt\": \"1970-01-01T00:00:01Z\""));
    }
}
