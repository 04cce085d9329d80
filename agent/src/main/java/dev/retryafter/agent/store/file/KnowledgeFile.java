package dev.retryafter.agent.store.file;

import dev.retryafter.agent.engine.*;
import dev.retryafter.agent.engine.learn.*;
import dev.retryafter.agent.engine.knowledge.*;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.OptionalInt;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * The state file's format: {@link Properties}, parsed by the JDK, one group of keys per host, every
 * moment an ISO-8601 instant (wall-clock time survives a restart; a monotonic clock does not). A
 * checksum over every other line tells a torn or edited file from a whole one; a {@code format}
 * and {@code version} line tell a foreign or newer file from ours.
 * <pre>
 * format = retry-after-agent state
 * version = 1
 * hosts = 1
 * host.0.key = portal.example:443
 * host.0.not-before = 2026-12-01T10:15:30.120Z
 * host.0.pace.refused-rate = 0.5
 * ...
 * checksum = 5d41402a
 * </pre>
 */
final class KnowledgeFile {

    static final String FORMAT = "retry-after-agent state";
    /**
     * The most of a state file that is read: 10,000 hosts take 4.9 MB with one refusal streak each,
     * 10 MB in the cost benchmark (one to five), 16.7 MB with the most a host can hold (five, one
     * open, a hold and its reason, long names). Room for 20,000 such hosts; a larger file is not read
     * into the application's heap.
     */
    static final int MAX_BYTES = 32 << 20;
    private static final String TEMPORARY_SUFFIX = ".tmp";
    /**
     * How old a save's temporary file is when no save can still be writing it: a save writes it in one
     * go and renames it at once, about 2 s for 10,000 hosts (10 MB); a minute is far past that.
     */
    static final long STALE_TEMPORARY_MILLIS = 60_000;
    /** Linux's own limit on the links followed in resolving one path. */
    private static final int MAX_LINKS = 40;

    private KnowledgeFile() {
    }

    /** Why a file was not read. */
    static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String message) {
            super(message);
        }

        Unreadable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    static byte[] write(Map<String, HostKnowledge> hosts, long writtenAt) {
        Map<String, String> lines = new TreeMap<>();
        lines.put("format", FORMAT);
        lines.put("version", Integer.toString(HostKnowledge.VERSION));
        lines.put("written-at", instant(writtenAt));
        lines.put("hosts", Integer.toString(hosts.size()));
        int n = 0;
        for (Map.Entry<String, HostKnowledge> host : new TreeMap<>(hosts).entrySet()) {
            put(lines, "host." + n++ + ".", host.getKey(), host.getValue());
        }
        lines.put("checksum", checksum(lines));
        Properties properties = new Properties();
        properties.putAll(lines);
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 + 400 * hosts.size());
        try {
            // ISO-8859-1 with \\u escapes, by the JDK's own rules: any reader of properties reads it back.
            properties.store(out, "retry-after-agent: what each portal has shown; written whole, then renamed into place");
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return out.toByteArray();
    }

    static Map<String, HostKnowledge> read(byte[] bytes) throws Unreadable {
        Properties properties = new Properties();
        try (InputStream in = new java.io.ByteArrayInputStream(bytes)) {
            properties.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new Unreadable("not a properties file: " + e.getMessage(), e);
        }
        Map<String, String> lines = new TreeMap<>();
        for (String name : properties.stringPropertyNames()) {
            lines.put(name, properties.getProperty(name));
        }
        if (!FORMAT.equals(lines.get("format"))) {
            throw new Unreadable("not a retry-after-agent state file");
        }
        String version = lines.get("version");
        if (!Integer.toString(HostKnowledge.VERSION).equals(version)) {
            throw new Unreadable("format version " + version + ", this agent reads version " + HostKnowledge.VERSION);
        }
        String expected = lines.remove("checksum");
        if (expected == null || !expected.equals(checksum(lines))) {
            throw new Unreadable("checksum does not match: the file is torn or was edited");
        }
        try {
            int count = Integer.parseInt(required(lines, "hosts"));
            Map<String, HostKnowledge> hosts = new LinkedHashMap<>();
            for (int n = 0; n < count; n++) {
                String prefix = "host." + n + ".";
                hosts.put(required(lines, prefix + "key"), knowledge(lines, prefix));
            }
            return hosts;
        } catch (RuntimeException e) {
            throw new Unreadable("malformed: " + e.getMessage(), e);
        }
    }

    /**
     * Replaces {@code file}, or the file its symbolic links lead to, with {@code bytes} atomically:
     * written whole to a temporary file beside that target, forced to disk, then renamed over it; the
     * links stay. A reader, another JVM, or a crash at any moment sees the old file or the new one,
     * never part of one. A failure's message names its cause and the state file, never the temporary
     * file's random name: it reads the same while the cause lasts.
     */
    static void replace(Path file, byte[] bytes) throws IOException {
        Path target = target(file);
        if (Files.isDirectory(target)) {
            throw new IOException(target + " is a directory");
        }
        if (Files.exists(target) && !Files.isRegularFile(target)) {
            throw new IOException(target + " is not a regular file");
        }
        Path parent = target.getParent();
        Path temporary;
        try {
            Files.createDirectories(parent);
            temporary = Files.createTempFile(parent, "." + target.getFileName() + ".", TEMPORARY_SUFFIX);
        } catch (IOException e) {
            throw failed("cannot create a file in " + parent, e);
        }
        try {
            keepPermissions(target, temporary);
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE);
                 OutputStream out = java.nio.channels.Channels.newOutputStream(channel)) {
                out.write(bytes);
                out.flush();
                channel.force(true);
            } catch (IOException e) {
                throw failed("cannot write a file in " + parent, e);
            }
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system cannot rename atomically in " + parent, e);
            } catch (IOException e) {
                throw failed("cannot rename a new file over " + target, e);
            }
        } finally {
            try {
                Files.deleteIfExists(temporary);
            } catch (IOException e) {
                // the failure that matters is the one above
            }
        }
    }

    /**
     * The file {@code file} leads to through its symbolic links, which may not exist yet: a save
     * renames over it, so a link (to a shared file, a mounted one) stays a link. Each link is read
     * as the system reads it, relative to the directory it is in.
     */
    static Path target(Path file) throws IOException {
        Path at = file.toAbsolutePath();
        for (int links = 0; Files.isSymbolicLink(at); links++) {
            if (links == MAX_LINKS) {
                throw new IOException(file + " leads through more than " + MAX_LINKS + " symbolic links");
            }
            at = at.resolveSibling(Files.readSymbolicLink(at));
        }
        return at;
    }

    /**
     * Removes the temporary files that saves of {@code file} left when cut short (a kill -9, a halt
     * during a save): those of its pattern beside its target, older than {@link #STALE_TEMPORARY_MILLIS}.
     * A younger one may be the save of another JVM sharing the file, under way now: it is left alone.
     * Best effort: what cannot be listed or removed stays.
     */
    static void removeStaleTemporaries(Path file, long now) {
        try {
            Path target = target(file);
            final String prefix = "." + target.getFileName() + ".";
            DirectoryStream.Filter<Path> ours = new DirectoryStream.Filter<Path>() {
                @Override
                public boolean accept(Path entry) {
                    String name = entry.getFileName().toString();
                    return name.startsWith(prefix) && name.endsWith(TEMPORARY_SUFFIX)
                            && isDigits(name.substring(prefix.length(), name.length() - TEMPORARY_SUFFIX.length()));
                }
            };
            try (DirectoryStream<Path> left = Files.newDirectoryStream(target.getParent(), ours)) {
                for (Path temporary : left) {
                    BasicFileAttributes attributes = Files.readAttributes(temporary, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    if (attributes.isRegularFile() && attributes.lastModifiedTime().toMillis() < now - STALE_TEMPORARY_MILLIS) {
                        Files.deleteIfExists(temporary);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // nothing there, or nothing we may touch: it stays
        }
    }

    /** What {@link Files#createTempFile} puts between prefix and suffix: a random number. */
    private static boolean isDigits(String text) {
        if (text.isEmpty()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * The new file gets the permissions of the one it replaces: a file shared by several users'
     * JVMs stays readable by them (a temporary file is made readable by its owner only).
     */
    private static void keepPermissions(Path target, Path temporary) {
        try {
            Files.setPosixFilePermissions(temporary, Files.getPosixFilePermissions(target));
        } catch (IOException | UnsupportedOperationException e) {
            // no file yet, or no POSIX permissions here: the temporary file's own stay
        }
    }

    private static IOException failed(String what, IOException e) {
        return new IOException(what + ": " + why(e), e);
    }

    /** What went wrong, without the file names a {@link FileSystemException} carries (one of them random). */
    private static String why(IOException e) {
        if (e instanceof FileSystemException) {
            String reason = ((FileSystemException) e).getReason();
            if (reason != null) {
                return reason;
            }
            if (e instanceof AccessDeniedException) {
                return "permission denied";
            }
            if (e instanceof NoSuchFileException) {
                return "no such file or directory";
            }
            return e.getClass().getSimpleName();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    private static void put(Map<String, String> lines, String prefix, String key, HostKnowledge k) {
        lines.put(prefix + "key", key);
        moment(lines, prefix + "not-before", k.notBefore());
        moment(lines, prefix + "next-slot", k.nextSlot());
        moment(lines, prefix + "hold-until", k.holdUntil());
        if (k.holdReason().isPresent()) {
            lines.put(prefix + "hold-reason", k.holdReason().get());
        }
        if (k.pace().isPresent()) {
            PaceSchedule pace = k.pace().get();
            lines.put(prefix + "pace.refused-rate", Double.toString(pace.refusedRatePerSecond()));
            lines.put(prefix + "pace.epoch", instant(pace.epochMillis()));
            lines.put(prefix + "pace.cycle-ms", Long.toString(pace.cycleMillis()));
            if (pace.probeAfterMillis() > 0) {
                lines.put(prefix + "pace.probe-after-ms", Long.toString(pace.probeAfterMillis()));
            }
            if (pace.windowMillis() > 0) {
                lines.put(prefix + "pace.window-ms", Long.toString(pace.windowMillis()));
            }
        }
        moment(lines, prefix + "pace.learned-at", k.paceLearnedAt());
        if (k.learnedCeiling().isPresent()) {
            lines.put(prefix + "ceiling", Integer.toString(k.learnedCeiling().getAsInt()));
        }
        moment(lines, prefix + "costs-since", k.costsSince());
        if (k.hintsDistrusted().isPresent()) {
            lines.put(prefix + "hints-distrusted", k.hintsDistrusted().get());
        }
        if (k.retryAfterDistrusted().isPresent()) {
            lines.put(prefix + "retry-after-distrusted", k.retryAfterDistrusted().get());
        }
        if (k.openStreak().isPresent()) {
            OpenStreak s = k.openStreak().get();
            lines.put(prefix + "open.started-at", instant(s.startedAtMillis()));
            header(lines, prefix + "open.header-ms", s.headerMillis());
            lines.put(prefix + "open.last-refused-sent", instant(s.lastRefusedSentMillis()));
            lines.put(prefix + "open.refusals", Integer.toString(s.refusals()));
            lines.put(prefix + "open.while-paced", Boolean.toString(s.whilePaced()));
        }
        List<FinishedStreak> streaks = k.finishedStreaks();
        lines.put(prefix + "streaks", Integer.toString(streaks.size()));
        for (int i = 0; i < streaks.size(); i++) {
            FinishedStreak s = streaks.get(i);
            String p = prefix + "streak." + i + ".";
            lines.put(p + "started-at", instant(s.startedAtMillis()));
            header(lines, p + "header-ms", s.headerMillis());
            lines.put(p + "last-refused-after-ms", Long.toString(s.lastRefusedAfterMillis()));
            lines.put(p + "recovered-by-ms", Long.toString(s.recoveredByMillis()));
            lines.put(p + "while-paced", Boolean.toString(s.whilePaced()));
        }
    }

    private static HostKnowledge knowledge(Map<String, String> lines, String prefix) {
        Optional<PaceSchedule> pace = Optional.empty();
        if (lines.containsKey(prefix + "pace.refused-rate")) {
            pace = Optional.of(new PaceSchedule(Double.parseDouble(lines.get(prefix + "pace.refused-rate")),
                    millis(required(lines, prefix + "pace.epoch")), Long.parseLong(required(lines, prefix + "pace.cycle-ms")),
                    // absent: the cubic curve, or a window not learned; or an older file
                    Long.parseLong(lines.getOrDefault(prefix + "pace.probe-after-ms", "0")),
                    Long.parseLong(lines.getOrDefault(prefix + "pace.window-ms", "0"))));
        }
        Optional<OpenStreak> open = Optional.empty();
        if (lines.containsKey(prefix + "open.started-at")) {
            int refusals = Integer.parseInt(required(lines, prefix + "open.refusals"));
            if (refusals < 1) {
                throw new IllegalArgumentException(prefix + "open.refusals must be at least 1");
            }
            open = Optional.of(OpenStreak.of(millis(lines.get(prefix + "open.started-at")), header(lines, prefix + "open.header-ms"),
                    millis(required(lines, prefix + "open.last-refused-sent")), refusals,
                    Boolean.parseBoolean(required(lines, prefix + "open.while-paced"))));
        }
        int count = Integer.parseInt(required(lines, prefix + "streaks"));
        if (count < 0 || count > HostKnowledge.MAX_STREAKS) {
            throw new IllegalArgumentException(prefix + "streaks must be 0 to " + HostKnowledge.MAX_STREAKS);
        }
        List<FinishedStreak> streaks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String p = prefix + "streak." + i + ".";
            streaks.add(FinishedStreak.of(millis(required(lines, p + "started-at")), header(lines, p + "header-ms"),
                    Long.parseLong(required(lines, p + "last-refused-after-ms")), Long.parseLong(required(lines, p + "recovered-by-ms")),
                    Boolean.parseBoolean(required(lines, p + "while-paced"))));
        }
        String ceiling = lines.get(prefix + "ceiling");
        return HostKnowledge.of(moment(lines, prefix + "not-before"), moment(lines, prefix + "next-slot"),
                moment(lines, prefix + "hold-until"), Optional.ofNullable(lines.get(prefix + "hold-reason")), pace,
                moment(lines, prefix + "pace.learned-at"),
                ceiling == null ? OptionalInt.empty() : OptionalInt.of(Math.max(0, Integer.parseInt(ceiling))), open, streaks,
                moment(lines, prefix + "costs-since"), Optional.ofNullable(lines.get(prefix + "hints-distrusted")),
                Optional.ofNullable(lines.get(prefix + "retry-after-distrusted")));
    }

    private static void moment(Map<String, String> lines, String key, OptionalLong millis) {
        if (millis.isPresent()) {
            lines.put(key, instant(millis.getAsLong()));
        }
    }

    private static OptionalLong moment(Map<String, String> lines, String key) {
        String text = lines.get(key);
        return text == null ? OptionalLong.empty() : OptionalLong.of(millis(text));
    }

    private static void header(Map<String, String> lines, String key, OptionalLong headerMillis) {
        if (headerMillis.isPresent()) {
            lines.put(key, Long.toString(headerMillis.getAsLong()));
        }
    }

    private static OptionalLong header(Map<String, String> lines, String key) {
        String text = lines.get(key);
        if (text == null) {
            return OptionalLong.empty();
        }
        long value = Long.parseLong(text);
        if (value < 0) {
            throw new IllegalArgumentException(key + " is negative");
        }
        return OptionalLong.of(value);
    }

    private static String instant(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }

    private static long millis(String text) {
        return Instant.parse(text).toEpochMilli();
    }

    private static String required(Map<String, String> lines, String key) {
        String value = lines.get(key);
        if (value == null) {
            throw new IllegalArgumentException(key + " is missing");
        }
        return value;
    }

    /** CRC-32 of every key and value but the checksum's own, in key order. */
    private static String checksum(Map<String, String> lines) {
        CRC32 crc = new CRC32();
        for (Map.Entry<String, String> line : lines.entrySet()) {
            if (!line.getKey().equals("checksum")) {
                crc.update((line.getKey() + '=' + line.getValue() + '\n').getBytes(StandardCharsets.UTF_8));
            }
        }
        return Long.toHexString(crc.getValue());
    }
}
