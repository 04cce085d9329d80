package dev.retryafter.agent.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exit report is owner-only when new, and keeps the mode an operator gave the file it replaces. */
class ExitReportTest {

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
