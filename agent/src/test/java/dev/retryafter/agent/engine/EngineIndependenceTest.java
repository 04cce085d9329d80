package dev.retryafter.agent.engine;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine is plain Java: checked, not hoped for. Every compiled engine class is read as bytes,
 * and its constant pool, where every class, field and method it refers to is named, must name no
 * Byte Buddy, no HTTP client, nothing of {@code java.net.http}, and no file or socket.
 */
class EngineIndependenceTest {

    /** Internal names as they appear in a constant pool: in class references and in descriptors alike. */
    static final List<String> FORBIDDEN = List.of(
            "net/bytebuddy/",
            "java/net/http/",
            "java/net/HttpURLConnection",
            "org/apache/http/",
            "org/apache/hc/",
            "okhttp3/",
            "org/eclipse/jetty/client/",
            "io/netty/",
            "org/springframework/",
            // No I/O: the stores that keep knowledge in a file or on Redis live under store/.
            "java/nio/file/",
            "java/io/File",
            "java/net/Socket",
            "dev/retryafter/agent/io/",
            "dev/retryafter/agent/store/");

    @Test
    void noEngineClassRefersToByteBuddyOrAnHttpClient() throws Exception {
        Path engine = classesOf(RetryEngine.class);
        List<Path> classes = classFiles(engine);
        assertTrue(classes.size() >= 30, "found the engine's classes: " + classes.size());
        List<String> found = new ArrayList<>();
        for (Path file : classes) {
            for (String name : referencesIn(file)) {
                found.add(engine.relativize(file) + " refers to " + name);
            }
        }
        assertEquals(List.of(), found);
    }

    /** The scan would see a reference if there were one: the JDK adapter has them. */
    @Test
    void theScanFindsTheReferencesOfAClassThatHasThem() throws Exception {
        Path jdkAdapter = classesOf(RetryEngine.class).resolve("../instrument/jdk/JdkSend.class").normalize();
        assertTrue(Files.exists(jdkAdapter), jdkAdapter.toString());
        assertTrue(referencesIn(jdkAdapter).contains("java/net/http/"));
        Path advice = classesOf(RetryEngine.class).resolve("../instrument/jdk/SendAdvice.class").normalize();
        assertTrue(referencesIn(advice).contains("net/bytebuddy/"));
    }

    private static List<String> referencesIn(Path classFile) throws IOException {
        // Constant-pool strings are modified UTF-8; ASCII names read the same in ISO-8859-1.
        String bytes = new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
        assertFalse(bytes.isEmpty());
        List<String> names = new ArrayList<>();
        for (String forbidden : FORBIDDEN) {
            if (bytes.contains(forbidden)) {
                names.add(forbidden);
            }
        }
        return names;
    }

    private static List<Path> classFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(p -> p.toString().endsWith(".class")).sorted().collect(java.util.stream.Collectors.toList());
        }
    }

    private static Path classesOf(Class<?> type) throws URISyntaxException {
        Path root = Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        return root.resolve(type.getPackage().getName().replace('.', '/'));
    }
}
