package dev.retryafter.agent.store.file;

import dev.retryafter.agent.engine.*;
import dev.retryafter.agent.engine.learn.*;
import dev.retryafter.agent.engine.knowledge.*;
import dev.retryafter.agent.engine.knowledge.KnowledgeStoreContract;
import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The file store keeps the store contract, and survives a restart, a bad file and a second writer. */
class FileKnowledgeStoreTest extends KnowledgeStoreContract {

    private static final long DAY = 86_400_000L;
    private static final long WEEK = 7 * DAY;

    private final Path directory;
    private final VirtualClock clock = new VirtualClock(T);
    private final List<String> warnings = new CopyOnWriteArrayList<>();

    FileKnowledgeStoreTest() throws IOException {
        directory = Files.createTempDirectory("state-file-test");
    }

    @AfterEach
    void removeFiles() throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                Files.delete(file);
            }
        }
        Files.delete(directory);
    }

    @Override
    protected KnowledgeStore newStore() {
        return open(directory.resolve("state-" + System.nanoTime() + ".properties"));
    }

    private FileKnowledgeStore open(Path file) {
        return FileKnowledgeStore.open(file, clock, WEEK, warnings::add);
    }

    private Path stateFile() {
        return directory.resolve("state.properties");
    }

    @Test
    void whatOneRunLearnedTheNextRunKnows() throws Exception {
        FileKnowledgeStore first = open(stateFile());
        first.imposeNotBefore(HOST, T + 60_000);
        first.holdUntil(OTHER, T + 3_600_000, "Retry-After named a moment 3600s away, beyond max-sleep 300s, twice");
        first.learn(HOST, T, Optional.of(new PaceSchedule(0.5, T - 600_000, 200_000)), OptionalInt.of(30));
        for (int i = 0; i < 3; i++) {
            long start = T - 500_000 + i * 100_000L;
            first.recordRefusal(HOST, start, start, i == 0 ? OptionalLong.empty() : OptionalLong.of(20_000), i == 2);
            if (i == 1) {
                first.recordRefusal(HOST, start + 10, start, OptionalLong.of(45_000), false); // told another moment
            }
            first.recordRecovery(HOST, start + 21_000);
        }
        first.recordRefusal(HOST, T - 10, T - 10, OptionalLong.of(5_000), true); // open at exit
        first.distrustHints(HOST, "refused when 7 should have been left");
        first.save();
        assertTrue(warnings.isEmpty(), warnings::toString);

        clock.set(T + 30_000); // the scraper runs again half a minute later
        FileKnowledgeStore second = open(stateFile());
        assertTrue(warnings.isEmpty(), warnings::toString);
        HostKnowledge host = second.read(HOST);
        HostKnowledge before = first.read(HOST);
        assertEquals(before.notBefore(), host.notBefore(), "a wait not yet over is honoured");
        assertEquals(before.finishedStreaks(), host.finishedStreaks(), "the category evidence is kept");
        assertEquals(before.characterisation().category(), host.characterisation().category());
        assertEquals(OptionalInt.of(30), host.learnedCeiling());
        PaceSchedule pace = host.pace().get();
        assertEquals(0.5, pace.refusedRatePerSecond(), 0);
        assertEquals(T + 30_000, pace.epochMillis(), "the pace starts again from now...");
        assertEquals(0.8 * 0.5, pace.rate(T + 30_000, 0.8), 1e-9, "...at headroom of the refused rate");
        assertFalse(host.openStreak().isPresent(), "a streak left open cannot be measured any more");
        assertTrue(second.read(OTHER).isHeldAt(T + 30_000), "a hold not yet over is honoured");
        assertEquals(first.read(OTHER).holdReason(), second.read(OTHER).holdReason());
        assertEquals(Optional.of("refused when 7 should have been left"), host.hintsDistrusted(), "lying hints stay distrusted");
        assertEquals(Optional.of("Retry-After named moments 25.0s apart to two refusals 0.0s apart"), host.retryAfterDistrusted(),
                "so does a lying Retry-After");
        assertFalse(second.read(OTHER).hintsDistrusted().isPresent());
    }

    @Test
    void aConfirmedPlateauOutlivesTheRunAndACurveWritesNoPlateauKey() throws Exception {
        FileKnowledgeStore first = open(stateFile());
        first.learn(HOST, T, Optional.of(new PaceSchedule(0.5, T - 60_000, 200_000, 300_000)), OptionalInt.of(30));
        first.learn(OTHER, T, Optional.of(new PaceSchedule(0.5, T - 60_000, 200_000)), OptionalInt.of(30));
        first.save();
        String text = new String(Files.readAllBytes(stateFile()), StandardCharsets.UTF_8);
        assertEquals(1, text.split("pace.probe-after-ms", -1).length - 1, "written for the plateau alone: " + text);

        clock.set(T + 30_000);
        FileKnowledgeStore second = open(stateFile());
        assertTrue(warnings.isEmpty(), warnings::toString);
        assertEquals(new PaceSchedule(0.5, T + 30_000, 200_000, 300_000), second.read(HOST).pace().get(), "on the plateau from now");
        assertEquals(0, second.read(OTHER).pace().get().probeAfterMillis(), "no key (a file of before plateaus too): the curve");
    }

    @Test
    void knowledgeOlderThanTheMaximumAgeIsIgnoredUnlessSomethingIsStillOwed() throws Exception {
        FileKnowledgeStore first = open(stateFile());
        first.learn(HOST, T, Optional.of(new PaceSchedule(0.5, T, 200_000)), OptionalInt.of(30));
        first.learn(OTHER, T, Optional.of(new PaceSchedule(0.5, T, 200_000)), OptionalInt.of(30));
        first.holdUntil(OTHER, T + 9 * DAY, "a very long hold");
        first.save();
        clock.set(T + 8 * DAY);
        FileKnowledgeStore later = open(stateFile());
        assertEquals(HostKnowledge.NONE, later.read(HOST), "a week and a day old");
        assertTrue(later.read(OTHER).isHeldAt(clock.millis()), "still held: kept");
    }

    @Test
    void aCorruptFileIsSetAsideWithOneWarningAndTheStoreStartsCold() throws Exception {
        Files.write(stateFile(), new byte[] {0x1f, (byte) 0x8b, 0, 0, 'x', '\\', 'u', 'z', 'z'});
        assertSetAside("not a properties file");
    }

    @Test
    void aTruncatedFileIsSetAside() throws Exception {
        FileKnowledgeStore first = open(stateFile());
        for (int i = 0; i < 20; i++) {
            first.imposeNotBefore("host-" + i + ":443", T + 60_000);
        }
        first.save();
        byte[] whole = Files.readAllBytes(stateFile());
        Files.write(stateFile(), Arrays.copyOf(whole, whole.length / 2));
        assertSetAside(""); // whichever line was cut (the format's, a host's), it shows
    }

    @Test
    void aForeignFileIsSetAside() throws Exception {
        Files.write(stateFile(), "spring.datasource.url = jdbc:h2:mem\n".getBytes(StandardCharsets.ISO_8859_1));
        assertSetAside("not a retry-after-agent state file");
    }

    @Test
    void aFileOfANewerFormatIsSetAside() throws Exception {
        FileKnowledgeStore first = open(stateFile());
        first.imposeNotBefore(HOST, T + 1);
        first.save();
        String text = new String(Files.readAllBytes(stateFile()), StandardCharsets.ISO_8859_1).replace("version=1", "version=2");
        Files.write(stateFile(), text.getBytes(StandardCharsets.ISO_8859_1));
        assertSetAside("format version 2");
    }

    /** Issue 28, item 7: a state file past the bound is set aside unread, not read into the heap. */
    @Test
    void aFileLargerThanTheBoundIsSetAsideUnread() throws Exception {
        byte[] large = new byte[KnowledgeFile.MAX_BYTES + 1];
        Arrays.fill(large, (byte) '#');
        Files.write(stateFile(), large);
        assertSetAside("larger than 32 MiB");
    }

    private void assertSetAside(String why) throws IOException {
        FileKnowledgeStore store = open(stateFile());
        assertEquals(1, warnings.size(), warnings::toString);
        String warning = warnings.get(0);
        assertTrue(warning.contains(stateFile().toString()) && warning.contains("set aside as") && warning.contains(why), warning);
        assertTrue(store.snapshot().isEmpty(), "a cold start");
        assertFalse(Files.exists(stateFile()), "out of the way");
        try (DirectoryStream<Path> aside = Files.newDirectoryStream(directory, "state.properties.unreadable-*")) {
            assertTrue(aside.iterator().hasNext(), "kept under another name");
        }
        store.imposeNotBefore(HOST, T + 5);
        store.save();
        assertEquals(OptionalLong.of(T + 5), open(stateFile()).read(HOST).notBefore(), "and written afresh");
        assertEquals(1, warnings.size(), "one warning only");
    }

    /** Two JVMs pointed at one file: each writes whole and renames; a reader never sees a torn file. */
    @Test
    void twoWritersOnOneFileNeverLeaveItTorn() throws Exception {
        FileKnowledgeStore one = open(stateFile());
        FileKnowledgeStore two = open(stateFile());
        for (int i = 0; i < 200; i++) {
            one.imposeNotBefore("one-" + i + ":443", T + 60_000);
            two.imposeNotBefore("two-" + i + ":443", T + 60_000);
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger reads = new AtomicInteger();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> writers = new ArrayList<>();
        for (FileKnowledgeStore store : List.of(one, two)) {
            writers.add(new Thread(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        store.save();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        Thread reader = new Thread(() -> {
            while (writing.get()) {
                try {
                    byte[] bytes = Files.readAllBytes(stateFile());
                    KnowledgeFile.read(bytes);
                    reads.incrementAndGet();
                } catch (java.nio.file.NoSuchFileException notYet) {
                    // before the first rename
                } catch (Throwable e) {
                    failures.add(e);
                }
            }
        });
        reader.start();
        writers.forEach(Thread::start);
        for (Thread writer : writers) {
            writer.join();
        }
        writing.set(false);
        reader.join();
        assertTrue(failures.isEmpty(), () -> "e.g. " + failures.get(0));
        assertTrue(reads.get() > 0, "the reader read");
        one.save();
        two.save();
        Map<String, HostKnowledge> both = open(stateFile()).snapshot();
        assertEquals(400, both.size(), "each writer keeps what the other wrote");
        try (DirectoryStream<Path> left = Files.newDirectoryStream(directory, ".*.tmp")) {
            assertFalse(left.iterator().hasNext(), "no temporary file left behind");
        }
    }

    /**
     * Issue 28, item 6: a state file that is a symbolic link (a shared file, a mounted one) is
     * written through the link. The first save used to replace the link with a regular file.
     */
    @Test
    void aSymlinkedStateFileIsWrittenThroughTheLink() throws Exception {
        Path shared = Files.createDirectory(directory.resolve("shared"));
        Path target = shared.resolve("fleet.properties");
        Path link = Files.createSymbolicLink(stateFile(), directory.relativize(target)); // relative, as ln -s makes them
        FileKnowledgeStore store = open(link);
        store.imposeNotBefore(HOST, T + 60_000);
        store.save(); // the target does not exist yet
        store.imposeNotBefore(OTHER, T + 60_000);
        store.save(); // and now it does
        assertTrue(Files.isSymbolicLink(link), "still a link");
        assertEquals(2, open(target).snapshot().size(), "the target has what was saved");
        try (DirectoryStream<Path> left = Files.newDirectoryStream(directory, ".*.tmp");
             DirectoryStream<Path> leftThere = Files.newDirectoryStream(shared, ".*.tmp")) {
            assertFalse(left.iterator().hasNext() || leftThere.iterator().hasNext(), "no temporary file left behind");
        }
        assertTrue(warnings.isEmpty(), warnings::toString);
        Files.delete(target);
        Files.delete(link);
        Files.delete(shared);
    }

    /** A shared file stays as readable as it was: a save renames a new file over it, with the old one's permissions. */
    @Test
    void aSaveKeepsTheFilesPermissions() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(directory.getFileSystem().supportedFileAttributeViews().contains("posix"));
        FileKnowledgeStore store = open(stateFile());
        store.save();
        Set<PosixFilePermission> shared = PosixFilePermissions.fromString("rw-rw-r--");
        Files.setPosixFilePermissions(stateFile(), shared);
        store.imposeNotBefore(HOST, T + 60_000);
        store.save();
        assertEquals(shared, Files.getPosixFilePermissions(stateFile()));
    }

    /** A link to a file that cannot be read: the target is set aside, and the link stays for the next save. */
    @Test
    void anUnreadableTargetIsSetAsideAndTheLinkKept() throws Exception {
        Path shared = Files.createDirectory(directory.resolve("shared"));
        Path target = shared.resolve("fleet.properties");
        Files.write(target, "spring.datasource.url = jdbc:h2:mem\n".getBytes(StandardCharsets.ISO_8859_1));
        Path link = Files.createSymbolicLink(stateFile(), target);
        FileKnowledgeStore store = open(link);
        assertEquals(1, warnings.size(), warnings::toString);
        assertTrue(Files.isSymbolicLink(link), "the link stays");
        store.imposeNotBefore(HOST, T + 5);
        store.save();
        assertEquals(OptionalLong.of(T + 5), open(target).read(HOST).notBefore(), "written afresh through the link");
        try (DirectoryStream<Path> files = Files.newDirectoryStream(shared)) {
            for (Path file : files) {
                Files.delete(file);
            }
        }
        Files.delete(link);
        Files.delete(shared);
    }

    /**
     * Issue 28, item 5: a save cut short (kill -9, an exit during a save) leaves its temporary file;
     * nothing removed them. At start, this file's own ones are removed once older than a save takes;
     * a younger one may be another JVM's save under way, and another file's are not ours.
     */
    @Test
    void staleTemporaryFilesOfThisStateFileAreRemovedAtStart() throws Exception {
        Path stale = temporary(".state.properties.8214411523906180353.tmp", T - 120_000);
        Path underWay = temporary(".state.properties.99120077.tmp", T - 1_000);
        Path anotherFiles = temporary(".other.properties.8214411523906180353.tmp", T - 120_000);
        Path notASaves = temporary(".state.properties.mine.tmp", T - 120_000);
        open(stateFile());
        assertFalse(Files.exists(stale), "a stale one is removed");
        assertTrue(Files.exists(underWay), "a save under way in another JVM is left alone");
        assertTrue(Files.exists(anotherFiles) && Files.exists(notASaves), "what is not this file's temporary file is left alone");
        assertTrue(warnings.isEmpty(), warnings::toString);
    }

    private Path temporary(String name, long modifiedAt) throws IOException {
        Path file = Files.write(directory.resolve(name), new byte[] {'x'});
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(modifiedAt));
        return file;
    }

    /** The save at exit is the last: a periodic save that starts after it writes nothing the exit could cut short. */
    @Test
    void aSaveAfterTheLastWritesNothing() throws Exception {
        FileKnowledgeStore store = open(stateFile());
        store.imposeNotBefore(HOST, T + 60_000);
        store.saveLast();
        byte[] written = Files.readAllBytes(stateFile());
        store.imposeNotBefore(OTHER, T + 60_000);
        store.save();
        assertArrayEquals(written, Files.readAllBytes(stateFile()));
        try (DirectoryStream<Path> left = Files.newDirectoryStream(directory, ".*.tmp")) {
            assertFalse(left.iterator().hasNext(), "no temporary file");
        }
    }

    /** Not a timed assertion: a figure for the report. */
    @Test
    void theStateOfTenThousandHostsIsWrittenInOneFile() throws Exception {
        FileKnowledgeStore store = open(stateFile());
        for (int i = 0; i < 10_000; i++) {
            String host = "host-" + i + ".example:443";
            store.recordRefusal(host, T, T, OptionalLong.of(30_000), false);
            store.recordRecovery(host, T + 31_000);
            store.learn(host, T, Optional.of(new PaceSchedule(0.5, T, 200_000)), OptionalInt.of(30));
            store.imposeNotBefore(host, T + 30_000);
        }
        long start = System.nanoTime();
        byte[] encoded = KnowledgeFile.write(store.snapshot(), T);
        long encodeMillis = (System.nanoTime() - start) / 1_000_000;
        start = System.nanoTime();
        store.save();
        long millis = (System.nanoTime() - start) / 1_000_000;
        long bytes = Files.size(stateFile());
        System.out.printf("state of 10,000 hosts: %,d bytes, encoded in %d ms, saved (encoded, written, forced, renamed) in %d ms%n",
                encoded.length, encodeMillis, millis);
        assertEquals(10_000, open(stateFile()).snapshot().size());
    }
}
