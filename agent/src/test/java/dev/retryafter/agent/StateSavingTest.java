package dev.retryafter.agent;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.store.file.FileKnowledgeStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Saving the state file: a failure is said once per cause, and saving again once. */
class StateSavingTest {

    private static final long WEEK = 7 * 86_400_000L;

    @TempDir
    Path directory;

    private final List<String> info = new CopyOnWriteArrayList<>();
    private final List<String> warnings = new CopyOnWriteArrayList<>();

    /**
     * Issue 28, item 4: a directory where the state file should be. Each failure's text named the
     * save's random temporary file, so "the same failure again" never matched: a WARN at every save.
     */
    @Test
    void aSaveThatKeepsFailingIsSaidOnceAndItsEndOnce() throws Exception {
        Path file = directory.resolve("state.properties");
        Files.createDirectory(file);
        FileKnowledgeStore state = FileKnowledgeStore.open(file, Clock.system(), WEEK, warnings::add);
        warnings.clear(); // what opening said is not saving's
        StateSaving saving = new StateSaving(state, info::add, warnings::add);
        for (int i = 0; i < 5; i++) {
            saving.save();
        }
        assertEquals(1, warnings.size(), warnings::toString);
        assertTrue(warnings.get(0).contains(file.toString()), warnings.get(0));
        assertEquals(List.of(), info);

        Files.delete(file);
        saving.save();
        saving.save();
        assertTrue(Files.isRegularFile(file), "written");
        assertEquals(1, info.size(), info::toString);
        assertTrue(info.get(0).contains(file.toString()) && info.get(0).contains("again"), info.get(0));
        assertEquals(1, warnings.size(), warnings::toString);
    }

    /** Issue 28, item 5: after the exit's save, a periodic save that comes late writes nothing. */
    @Test
    void noSaveStartsAfterTheExitsSave() throws Exception {
        Path file = directory.resolve("state.properties");
        FileKnowledgeStore state = FileKnowledgeStore.open(file, Clock.system(), WEEK, warnings::add);
        StateSaving saving = new StateSaving(state, info::add, warnings::add);
        saving.start(1);
        state.imposeNotBefore("portal.example:443", System.currentTimeMillis() + 60_000);
        saving.atExit();
        byte[] last = Files.readAllBytes(file);
        state.imposeNotBefore("other.example:443", System.currentTimeMillis() + 60_000);
        saving.save(); // as a periodic save that had already begun would
        assertArrayEquals(last, Files.readAllBytes(file));
        try (DirectoryStream<Path> left = Files.newDirectoryStream(directory, ".*.tmp")) {
            assertFalse(left.iterator().hasNext(), "no temporary file");
        }
        assertEquals(List.of(), warnings);
    }
}
