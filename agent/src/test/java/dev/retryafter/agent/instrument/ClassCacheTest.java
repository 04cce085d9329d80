package dev.retryafter.agent.instrument;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The class cache: a class changed once is found again only for exactly the same bytes and advice,
 * and only in a directory and file that are this user's alone; a damaged entry is ignored.
 */
class ClassCacheTest {

    private static final String NAME = "org/apache/http/impl/client/InternalHttpClient";

    @TempDir
    Path dir;

    private final List<String> said = new ArrayList<>();

    private ClassCache open(Path directory) {
        return ClassCache.open(directory, said::add);
    }

    @Test
    void aClassChangedOnceIsFoundForTheSameBytesAndAdviceOnly() throws Exception {
        ClassCache cache = open(dir.resolve("classes"));
        assertNotNull(cache, () -> "usable: " + said);
        byte[] original = {1, 2, 3, 4, 5};
        byte[] changed = {9, 8, 7};
        assertNull(cache.find(NAME, original, 42), "nothing kept yet");
        cache.store(NAME, original, 42, changed);
        assertArrayEquals(changed, cache.find(NAME, original, 42));
        assertArrayEquals(changed, open(dir.resolve("classes")).find(NAME, original, 42), "and by the next JVM's cache");
        assertNull(cache.find(NAME, new byte[] {1, 2, 3, 4, 6}, 42), "other bytes, the same length");
        assertNull(cache.find(NAME, original, 43), "other advice");
        assertNull(cache.find("org/apache/http/impl/client/MinimalHttpClient", original, 42), "another class");
    }

    @Test
    void theDirectoryIsMadeForItsOwnerAlone() throws Exception {
        Path classes = dir.resolve("a").resolve("classes");
        assertNotNull(open(classes));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(classes)));
        open(classes).store(NAME, new byte[] {1}, 1, new byte[] {2});
        try (Stream<Path> entries = Files.list(classes)) {
            entries.forEach(entry -> assertEquals("rw-------", permissions(entry), entry::toString));
        }
    }

    @Test
    void aDirectoryOthersMayWriteToIsNotUsed() throws Exception {
        Path classes = Files.createDirectory(dir.resolve("classes"));
        Files.setPosixFilePermissions(classes, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertNull(open(classes));
        assertEquals(1, said.size());
        assertTrue(said.get(0).contains("may be written by others (mode 777)"), said::toString);
    }

    @Test
    void anEntryOthersMayWriteToIsNotUsed() throws Exception {
        ClassCache cache = open(dir.resolve("classes"));
        byte[] original = {1, 2, 3};
        cache.store(NAME, original, 7, new byte[] {4});
        try (Stream<Path> entries = Files.list(dir.resolve("classes"))) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                Files.setPosixFilePermissions(entry, PosixFilePermissions.fromString("rw-rw-rw-"));
            }
        }
        assertNull(cache.find(NAME, original, 7), "anyone could have put code there");
    }

    @Test
    void aDamagedEntryIsIgnoredAndReplaced() throws Exception {
        ClassCache cache = open(dir.resolve("classes"));
        byte[] original = {1, 2, 3, 4, 5, 6, 7, 8};
        byte[] changed = {10, 11, 12, 13};
        cache.store(NAME, original, 7, changed);
        Path entry;
        try (Stream<Path> entries = Files.list(dir.resolve("classes"))) {
            entry = entries.findFirst().orElseThrow(AssertionError::new);
        }
        byte[] bytes = Files.readAllBytes(entry);
        bytes[bytes.length - 12] ^= 1; // one bit of the changed class
        Files.write(entry, bytes);
        assertNull(cache.find(NAME, original, 7), "fails its checksum");
        Files.write(entry, new byte[] {0x52, 0x41});
        assertNull(cache.find(NAME, original, 7), "cut short");
        cache.store(NAME, original, 7, changed);
        assertArrayEquals(changed, cache.find(NAME, original, 7), "written again");
    }

    @Test
    void theDefaultPlaceIsUnderTheUsersCacheDirectory() {
        assertEquals(Paths.get("/var/cache/x/retry-after-agent/classes"), ClassCache.defaultDirectory("/var/cache/x", "/home/u"));
        assertEquals(Paths.get("/home/u/.cache/retry-after-agent/classes"), ClassCache.defaultDirectory(null, "/home/u"));
        assertEquals(Paths.get("/home/u/.cache/retry-after-agent/classes"), ClassCache.defaultDirectory("", "/home/u"));
        assertNull(ClassCache.defaultDirectory(null, "?"), "a user with no home: no cache in the working directory");
        assertNull(ClassCache.defaultDirectory("relative", null));
    }

    /** A real client class, changed by the transformer and then taken from the cache by a second one: the same bytes. */
    @Test
    void aSecondTransformerTakesTheChangedClassFromTheCache() throws Exception {
        ClassLoader here = getClass().getClassLoader();
        String className = "org.apache.hc.client5.http.impl.classic.InternalHttpClient";
        byte[] original;
        try (InputStream in = here.getResourceAsStream(className.replace('.', '/') + ".class")) {
            original = in.readAllBytes();
        }
        byte[] first = ClientInstrumentation.forTests(here, dir.resolve("classes")).transform(here, className, original);
        assertNotNull(first);
        long entries;
        try (Stream<Path> listing = Files.list(dir.resolve("classes"))) {
            entries = listing.count();
        }
        assertEquals(1, entries, "one entry kept");
        assertArrayEquals(first, ClientInstrumentation.forTests(here).transform(here, className, original),
                "what Byte Buddy makes afresh is the same");
        assertArrayEquals(first, ClientInstrumentation.forTests(here, dir.resolve("classes")).transform(here, className, original));
        // Proof that the second came from the cache: an entry replaced under the same name is what it returns.
        Path entry;
        try (Stream<Path> listing = Files.list(dir.resolve("classes"))) {
            entry = listing.findFirst().orElseThrow(AssertionError::new);
        }
        String file = entry.getFileName().toString();
        long adviceKey = Long.parseLong(file.substring(file.lastIndexOf('-') + 1, file.length() - ".class".length()), 16);
        byte[] marker = {(byte) 0xca, (byte) 0xfe};
        open(dir.resolve("classes")).store(className.replace('.', '/'), original, adviceKey, marker);
        assertArrayEquals(marker, ClientInstrumentation.forTests(here, dir.resolve("classes")).transform(here, className, original));
    }

    private static String permissions(Path path) {
        try {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
