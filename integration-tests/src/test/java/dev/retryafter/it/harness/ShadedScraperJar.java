package dev.retryafter.it.harness;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.commons.ClassRemapper;
import net.bytebuddy.jar.asm.commons.Remapper;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * The demo's legacy scraper as a fat jar whose Apache HttpClient 4 and 5, HttpAsyncClient 4.1 and 5, OkHttp 4 and
 * Jetty HttpClient 12 are relocated, as maven-shade's {@code relocations} leave them: {@code org.apache.http} to {@code shaded.org.apache.http},
 * {@code org.apache.hc} to {@code shaded.org.apache.hc}, {@code okhttp3}, {@code okio} and {@code org.eclipse.jetty} under {@code shaded.}. Made once per test JVM, with ASM's
 * {@link ClassRemapper}, which is what the shade plugin runs: every class file that may name those
 * packages (the scraper's, the clients') is rewritten, and their resources move with them.
 * Kotlin's standard library, slf4j and commons-logging and -codec go in unchanged.
 */
public final class ShadedScraperJar {

    public static final Map<String, String> RELOCATIONS = Map.of(
            "org/apache/http/", "shaded/org/apache/http/",
            "org/apache/hc/", "shaded/org/apache/hc/",
            "okhttp3/", "shaded/okhttp3/",
            "okio/", "shaded/okio/",
            "org/eclipse/jetty/", "shaded/org/eclipse/jetty/");

    /** AsyncHttpClient and the Netty it runs on, as a fat jar of an AsyncHttpClient scraper relocates them. */
    public static final Map<String, String> ASYNC_HTTP_CLIENT_RELOCATIONS = Map.of(
            "org/asynchttpclient/", "shaded/org/asynchttpclient/",
            "io/netty/", "shaded/io/netty/");

    /** OkHttp 2 and its okio 1.x, as a fat jar of an OkHttp 2 scraper relocates them. */
    public static final Map<String, String> OKHTTP_2_RELOCATIONS = Map.of(
            "com/squareup/okhttp/", "shaded/com/squareup/okhttp/",
            "okio/", "shaded/okio/");

    private static Path jar;
    private static Path asyncHttpClientJar;
    private static Path okHttp2Jar;

    private final Map<String, String> relocations;
    /** Whether string constants that name a class of a relocated package move too, as maven-shade moves them. */
    private final boolean relocateStrings;

    private ShadedScraperJar(Map<String, String> relocations) {
        this(relocations, false);
    }

    private ShadedScraperJar(Map<String, String> relocations, boolean relocateStrings) {
        this.relocations = relocations;
        this.relocateStrings = relocateStrings;
    }

    /** The fat jar, built at the first call. */
    public static synchronized Path get() throws IOException {
        if (jar == null) {
            jar = new ShadedScraperJar(RELOCATIONS).build(ChildJvm.workDir().resolve("shaded-scraper.jar"),
                    TestClasspath.entries(TestClasspath.DEMO));
        }
        return jar;
    }

    /**
     * The scraper with AsyncHttpClient 3 and Netty relocated ({@link #ASYNC_HTTP_CLIENT_RELOCATIONS}) and the test
     * applications' fetcher on it ({@code --client dev.retryafter.it.apps.java8.AsyncHttpClientFetcher}), built at the first call.
     */
    public static synchronized Path withAsyncHttpClient() throws IOException {
        if (asyncHttpClientJar == null) {
            List<String> sources = TestClasspath.entries(TestClasspath.SCRAPER.or(name -> name.startsWith("async-http-client")
                    || name.startsWith("netty-") || name.startsWith("reactive-streams") || name.startsWith("jakarta.activation")));
            sources.add(TestClasspath.testClasses());
            asyncHttpClientJar = new ShadedScraperJar(ASYNC_HTTP_CLIENT_RELOCATIONS).build(
                    ChildJvm.workDir().resolve("shaded-ahc-scraper.jar"), sources);
        }
        return asyncHttpClientJar;
    }

    /**
     * OkHttp 2.7.5 and okio 1.6 relocated ({@link #OKHTTP_2_RELOCATIONS}) with the test applications' {@code OkHttp2App}
     * on it, whose class names in strings (it loads OkHttp 2 by reflection) move too, as maven-shade moves them; built at
     * the first call.
     */
    public static synchronized Path withOkHttp2() throws IOException {
        if (okHttp2Jar == null) {
            List<String> sources = TestClasspath.folder("okhttp-2");
            sources.add(TestClasspath.testClasses());
            okHttp2Jar = new ShadedScraperJar(OKHTTP_2_RELOCATIONS, true).build(ChildJvm.workDir().resolve("shaded-okhttp2-app.jar"), sources);
        }
        return okHttp2Jar;
    }

    private Path build(Path target, List<String> sources) throws IOException {
        Path temporary = Files.createTempFile(target.getParent(), "shaded-scraper-", ".jar");
        Set<String> written = new HashSet<>();
        try (ZipOutputStream out = new ZipOutputStream(new BufferedOutputStream(Files.newOutputStream(temporary)))) {
            out.setLevel(Deflater.BEST_SPEED); // read once, by one JVM at a time
            for (String source : sources) {
                Path path = Paths.get(source);
                if (Files.isDirectory(path)) {
                    try (Stream<Path> files = Files.walk(path)) {
                        for (Path file : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
                            String name = path.relativize(file).toString().replace('\\', '/');
                            if (name.startsWith("dev/retryafter/demo/scraper/") || name.startsWith("dev/retryafter/it/apps/java8/AsyncHttpClient")
                                    || name.startsWith("dev/retryafter/it/apps/java8/OkHttp2App")) {
                                try (InputStream in = Files.newInputStream(file)) {
                                    add(out, written, name, in);
                                }
                            }
                        }
                    }
                } else {
                    boolean demo = path.getFileName().toString().startsWith("retry-after-demo");
                    try (ZipFile zip = new ZipFile(path.toFile())) {
                        for (Enumeration<? extends ZipEntry> entries = zip.entries(); entries.hasMoreElements(); ) {
                            ZipEntry entry = entries.nextElement();
                            if (!entry.isDirectory() && (!demo || entry.getName().startsWith("dev/retryafter/demo/scraper/"))) {
                                try (InputStream in = zip.getInputStream(entry)) {
                                    add(out, written, entry.getName(), in);
                                }
                            }
                        }
                    }
                }
            }
        }
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
        return target;
    }

    private void add(ZipOutputStream out, Set<String> written, String name, InputStream in) throws IOException {
        // Signatures, module descriptors and other Javas' versions of classes: none of it survives a relocation.
        if (name.startsWith("META-INF/") || name.endsWith("module-info.class")) {
            return;
        }
        byte[] bytes = in.readAllBytes();
        if (name.endsWith(".class") && (name.startsWith("dev/") || !relocated(name).equals(name))) {
            bytes = relocate(bytes);
        }
        String moved = relocated(name);
        if (written.add(moved)) {
            out.putNextEntry(new ZipEntry(moved));
            out.write(bytes);
            out.closeEntry();
        }
    }

    private String relocated(String internalName) {
        for (Map.Entry<String, String> relocation : relocations.entrySet()) {
            if (internalName.startsWith(relocation.getKey())) {
                return relocation.getValue() + internalName.substring(relocation.getKey().length());
            }
        }
        return internalName;
    }

    private byte[] relocate(byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(0);
        reader.accept(new ClassRemapper(writer, new Remapper() {
            @Override
            public String map(String internalName) {
                return relocated(internalName);
            }

            /** A class's or package's name with dots ({@code "com.squareup.okhttp."}). */
            @Override
            public Object mapValue(Object value) {
                if (relocateStrings && value instanceof String && ((String) value).indexOf('/') < 0) {
                    String slashed = ((String) value).replace('.', '/');
                    String moved = relocated(slashed);
                    return moved.equals(slashed) ? value : moved.replace('/', '.');
                }
                return super.mapValue(value);
            }
        }), 0);
        return writer.toByteArray();
    }
}
