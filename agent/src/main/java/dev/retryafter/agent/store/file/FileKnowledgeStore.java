package dev.retryafter.agent.store.file;

import dev.retryafter.agent.engine.*;
import dev.retryafter.agent.engine.knowledge.*;
import dev.retryafter.agent.io.SmallFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Knowledge kept in memory, read from a state file at start and written back to it ({@link #save()}),
 * so a restarted scraper starts from what the last one learned. Operations are the in-memory
 * store's, inherited unchanged; only {@link #save()} touches the file, writing it whole and renaming
 * it into place (through a symbolic link: the link stays, its target is replaced).
 *
 * <p>At start, a file that cannot be read (torn, edited, foreign, a newer format, larger than
 * {@link KnowledgeFile#MAX_BYTES}) is set aside under a new name with one warning, and the store
 * starts cold; it never fails the application. Temporary files that saves cut short left behind are
 * removed. A host's
 * entry older than {@code maxAgeMillis} that owes nothing is ignored. A learned pace restarts from
 * the moment of loading, at headroom of the rate that was refused, and probes up as usual; a streak
 * left open by the last run is dropped, since its recovery can no longer be measured.
 */
public final class FileKnowledgeStore extends InMemoryKnowledgeStore {

    private final Path file;
    private final Clock clock;
    private final long maxAgeMillis;
    private final Consumer<String> warnings;
    private final Object saving = new Object();
    /** Guarded by saving. */
    private boolean savedLast;

    private FileKnowledgeStore(Path file, Clock clock, long maxAgeMillis, Consumer<String> warnings) {
        this.file = file;
        this.clock = clock;
        this.maxAgeMillis = maxAgeMillis;
        this.warnings = warnings;
    }

    /**
     * A store backed by {@code file}, loaded from it if it exists. Moments come from {@code clock},
     * which must read wall-clock epoch milliseconds (as {@link Clock#system()} does).
     */
    public static FileKnowledgeStore open(Path file, Clock clock, long maxAgeMillis, Consumer<String> warnings) {
        FileKnowledgeStore store = new FileKnowledgeStore(file, clock, maxAgeMillis, warnings);
        store.load();
        KnowledgeFile.removeStaleTemporaries(file, clock.millis());
        return store;
    }

    public Path file() {
        return file;
    }

    private void load() {
        if (!Files.exists(file)) {
            return; // a first run
        }
        if (!Files.isRegularFile(file)) {
            warnings.accept("state file " + file + " is not a regular file (a directory, a device); starting cold");
            return;
        }
        byte[] bytes;
        try {
            bytes = SmallFile.read(file.toFile(), KnowledgeFile.MAX_BYTES);
        } catch (SmallFile.TooLarge e) {
            setAside("larger than " + SmallFile.size(KnowledgeFile.MAX_BYTES) + ", more than the agent reads of a state file");
            return;
        } catch (IOException e) {
            warnings.accept("state file " + file + " cannot be read (" + e + "); starting cold");
            return;
        }
        Map<String, HostKnowledge> hosts;
        try {
            hosts = KnowledgeFile.read(bytes);
        } catch (KnowledgeFile.Unreadable e) {
            setAside(e.getMessage());
            return;
        }
        long now = clock.millis();
        for (Map.Entry<String, HostKnowledge> host : hosts.entrySet()) {
            HostKnowledge known = host.getValue();
            if (isStale(known, now)) {
                continue;
            }
            merge(host.getKey(), known.restartedAt(now));
        }
    }

    /**
     * The file goes out of the way under a name of its own, kept for whoever wants to look at it. A
     * link's target is moved, not the link: the next save writes a new target through it.
     */
    private void setAside(String reason) {
        try {
            Path target = KnowledgeFile.target(file);
            Path aside = target.resolveSibling(target.getFileName() + ".unreadable-" + clock.millis());
            Files.move(target, aside);
            warnings.accept("state file " + file + " cannot be used (" + reason + "); set aside as " + aside + "; starting cold");
        } catch (IOException e) {
            warnings.accept("state file " + file + " cannot be used (" + reason + ") nor set aside (" + e + "); starting cold");
        }
    }

    /** Writes what is known now, with what the file holds for hosts this JVM does not know, atomically. */
    public void save() throws IOException {
        synchronized (saving) { // one writer at a time in this JVM; another JVM's rename simply comes before or after
            if (savedLast) {
                return;
            }
            long now = clock.millis();
            Map<String, HostKnowledge> all = new HashMap<>();
            try {
                if (Files.isRegularFile(file)) { // else replace() says what is there
                    for (Map.Entry<String, HostKnowledge> theirs
                            : KnowledgeFile.read(SmallFile.read(file.toFile(), KnowledgeFile.MAX_BYTES)).entrySet()) {
                        all.put(theirs.getKey(), theirs.getValue());
                    }
                }
            } catch (IOException | KnowledgeFile.Unreadable e) {
                // nothing there, or nothing usable: what this JVM knows replaces it
            }
            for (Map.Entry<String, HostKnowledge> ours : snapshot().entrySet()) {
                HostKnowledge theirs = all.get(ours.getKey());
                all.put(ours.getKey(), theirs == null ? ours.getValue() : theirs.mergedWith(ours.getValue()));
            }
            all.values().removeIf(known -> isStale(known, now));
            KnowledgeFile.replace(file, KnowledgeFile.write(all, now));
        }
    }

    /**
     * The save at exit: after it, {@link #save()} writes nothing. A periodic save that started after
     * it would leave its temporary file behind when the JVM halts halfway through.
     */
    public void saveLast() throws IOException {
        synchronized (saving) { // waits for a save under way, which ends whole
            try {
                save();
            } finally {
                savedLast = true;
            }
        }
    }

    private boolean isStale(HostKnowledge known, long now) {
        return known.owesNothingAt(now) && known.lastEvidence().orElse(Long.MIN_VALUE) < now - maxAgeMillis;
    }
}
