package dev.retryafter.agent.instrument;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.zip.CRC32;

/**
 * Client classes as the agent changed them in an earlier run, kept on disk: a JVM started again with
 * the same JDK and client jars takes its changed classes from here and never starts Byte Buddy,
 * whose first change of a class costs about half a second of class loading.
 *
 * <p>An entry is found by the class's name and a checksum of its bytes, and holds the original bytes
 * in full: it is used only when they are equal, byte for byte, to what the JVM is loading now, and
 * when it was made by the same advice (its checksum is in the entry's name). What is read here is
 * code the JVM will run, so the directory and every entry must belong to this process's user and be
 * writable by no one else; where that cannot be shown (no {@code /proc/self}, another owner, open
 * permissions) the cache is not used. An entry that fails its own checksum is ignored and replaced.
 */
final class ClassCache {

    private static final int MAGIC = 0x52414343; // "RACC"
    private static final int FORMAT = 1;
    private static final LinkOption[] NO_FOLLOW = {LinkOption.NOFOLLOW_LINKS};

    private final Path directory;
    private final int uid;

    private ClassCache(Path directory, int uid) {
        this.directory = directory;
        this.uid = uid;
    }

    /**
     * The cache in {@code directory}, made (owner only) if missing; null when it cannot be made or
     * trusted, with {@code why} told the reason.
     */
    static ClassCache open(Path directory, Consumer<String> why) {
        try {
            Integer uid = ownUid();
            if (uid == null) {
                why.accept("this system does not show the process's user (no /proc/self)");
                return null;
            }
            if (!Files.isDirectory(directory, NO_FOLLOW)) {
                Files.createDirectories(directory.getParent());
                try {
                    Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } catch (FileAlreadyExistsException raced) {
                    // another JVM made it first: checked below like any other
                }
            }
            String untrusted = untrusted(directory, uid);
            if (untrusted != null) {
                why.accept(directory + " " + untrusted);
                return null;
            }
            return new ClassCache(directory, uid);
        } catch (IOException | RuntimeException e) {
            why.accept(directory + " cannot be used (" + e + ")");
            return null;
        }
    }

    /**
     * The default place: {@code $XDG_CACHE_HOME/retry-after-agent/classes}, else under
     * {@code ~/.cache}; null when neither is an absolute path (a user with no home, whose
     * {@code user.home} is "?", would otherwise get a cache in the working directory).
     */
    static Path defaultDirectory(String xdgCacheHome, String userHome) {
        Path root = absolute(xdgCacheHome);
        if (root == null) {
            Path home = absolute(userHome);
            root = home == null ? null : home.resolve(".cache");
        }
        return root == null ? null : root.resolve("retry-after-agent").resolve("classes");
    }

    private static Path absolute(String path) {
        if (path == null || path.isEmpty()) {
            return null;
        }
        try {
            Path p = Paths.get(path);
            return p.isAbsolute() ? p : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The class as changed before from exactly {@code original} by advice {@code adviceKey}; null when there is none. */
    byte[] find(String internalName, byte[] original, long adviceKey) {
        Path entry = entry(internalName, original, adviceKey);
        try {
            if (!Files.isRegularFile(entry, NO_FOLLOW) || untrusted(entry, uid) != null) {
                return null;
            }
            byte[] stored = Files.readAllBytes(entry);
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored));
            if (stored.length < 20 || in.readInt() != MAGIC || in.readInt() != FORMAT) {
                return null;
            }
            CRC32 crc = new CRC32();
            crc.update(stored, 0, stored.length - 8);
            if (crc.getValue() != ByteBuffer.wrap(stored, stored.length - 8, 8).getLong()) {
                return null;
            }
            byte[] was = new byte[in.readInt()];
            in.readFully(was);
            if (!Arrays.equals(was, original)) {
                return null;
            }
            byte[] changed = new byte[in.readInt()];
            in.readFully(changed);
            return changed;
        } catch (IOException | RuntimeException e) {
            return null; // unreadable or cut short: changed afresh, and written again
        }
    }

    /** Keeps {@code changed} for the next run: written whole to a temporary file, then renamed into place. */
    void store(String internalName, byte[] original, long adviceKey, byte[] changed) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(original.length + changed.length + 24);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(MAGIC);
        out.writeInt(FORMAT);
        out.writeInt(original.length);
        out.write(original);
        out.writeInt(changed.length);
        out.write(changed);
        CRC32 crc = new CRC32();
        crc.update(bytes.toByteArray());
        out.writeLong(crc.getValue());
        Path entry = entry(internalName, original, adviceKey);
        Path temporary = Files.createTempFile(directory, entry.getFileName().toString(), ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.write(temporary, bytes.toByteArray());
            try {
                Files.move(temporary, entry, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, entry, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    private Path entry(String internalName, byte[] original, long adviceKey) {
        CRC32 crc = new CRC32();
        crc.update(original);
        // No String.format: its first use loads the Formatter's classes, on the class-loading path
        return directory.resolve(new StringBuilder(internalName.replace('/', '.')).append('-').append(Long.toHexString(crc.getValue()))
                .append('-').append(original.length).append('-').append(Long.toHexString(adviceKey)).append(".class").toString());
    }

    /** Why {@code path} is not to be trusted, or null when it is this user's and no one else may write to it. */
    private static String untrusted(Path path, int uid) throws IOException {
        int owner = (Integer) Files.getAttribute(path, "unix:uid", NO_FOLLOW);
        if (owner != uid) {
            return "belongs to user " + owner + ", not to this process's user " + uid;
        }
        int mode = (Integer) Files.getAttribute(path, "unix:mode", NO_FOLLOW);
        if ((mode & 0022) != 0) {
            return "may be written by others (mode " + Integer.toOctalString(mode & 0777) + ")";
        }
        return null;
    }

    /** The process's user, as the owner of {@code /proc/self}; null where there is no such file. */
    private static Integer ownUid() throws IOException {
        Path self = Paths.get("/proc/self");
        if (!Files.exists(self)) {
            return null;
        }
        return (Integer) Files.getAttribute(self, "unix:uid");
    }
}
