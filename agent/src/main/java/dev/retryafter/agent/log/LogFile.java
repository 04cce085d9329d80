package dev.retryafter.agent.log;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The log file ({@code log-file = PATH}): lines are appended, and the file is opened again under
 * its name once something moved it away, as logrotate does ({@code create} or the default: rename,
 * then a new file). At most once every {@link #CHECK_MILLIS} a write asks the file system whether
 * the name still leads to the file held open (its inode, through {@code fileKey}); a rename is
 * noticed within that second. {@code copytruncate} needs nothing: the file is opened for appending,
 * so writes after the truncation land at its new end. Rotating by size is logrotate's job, not the
 * agent's: one process rotating, not two.
 */
final class LogFile {

    /** How often a write looks whether the file was moved away: a stat a second costs nothing. */
    static final long CHECK_MILLIS = 1_000;

    private final Path path;
    private OutputStream out;
    /** The open file's identity (device and inode on Unix); null where the platform has none. */
    private Object openKey;
    private long checkedAt;

    private LogFile(Path path) {
        this.path = path;
    }

    /** Opens {@code path} for appending, creating it (and its directory); throws when it cannot. */
    static LogFile open(Path path) throws IOException {
        LogFile file = new LogFile(path.toAbsolutePath());
        file.reopen(System.currentTimeMillis());
        return file;
    }

    Path path() {
        return path;
    }

    /** Appends {@code text}; throws when the file cannot be written (the caller says it on standard error). */
    synchronized void write(String text) throws IOException {
        long now = System.currentTimeMillis();
        if (now - checkedAt >= CHECK_MILLIS) {
            checkedAt = now;
            if (movedAway()) {
                reopen(now);
            }
        }
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private boolean movedAway() {
        try {
            Object key = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
            return key != null && !key.equals(openKey);
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            return false; // cannot tell: keep writing where we are
        }
    }

    private void reopen(long now) throws IOException {
        Path parent = path.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        OutputStream next = new FileOutputStream(path.toFile(), true);
        OutputStream before = out;
        out = next;
        checkedAt = now;
        openKey = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        if (before != null) {
            try {
                before.close();
            } catch (IOException e) {
                // the old file is someone else's now
            }
        }
    }

    synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            // nothing to do at exit
        }
    }
}
