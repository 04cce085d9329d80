package dev.retryafter.it.harness;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** The integration tests' resolved class path, from which child JVMs take only what they need. */
public final class TestClasspath {

    /** The demo scraper and the portal: demo-app with both Apache clients and OkHttp 4; and Commons HttpClient 3 for the test apps. */
    public static final Predicate<String> SCRAPER = name -> name.startsWith("retry-after-demo") || name.equals("classes")
            || name.startsWith("httpclient") || name.startsWith("httpcore") || name.startsWith("commons-logging")
            || name.startsWith("commons-httpclient")
            || name.startsWith("commons-codec") || name.startsWith("slf4j-api")
            || name.startsWith("okhttp-") || name.startsWith("okio") || name.startsWith("kotlin-stdlib") || name.startsWith("annotations-");

    /**
     * The demo's scraper as the demo runs it: {@link #SCRAPER} and the clients only the demo's
     * {@code --client} brings, Apache HttpAsyncClient 4.1 and Jetty HttpClient 12.
     */
    public static final Predicate<String> DEMO = SCRAPER.or(name -> name.startsWith("httpasyncclient")
            || name.startsWith("jetty-client") || name.startsWith("jetty-http") || name.startsWith("jetty-io")
            || name.startsWith("jetty-util") || name.startsWith("jetty-alpn-client") || name.startsWith("jetty-compression-"));

    private TestClasspath() {
    }

    public static List<String> entries(Predicate<String> byFileName) {
        String file = System.getProperty("test.classpath.file", "target/test-classpath.txt");
        String text;
        try {
            text = Files.readString(Paths.get(file)).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("no test class path at " + file, e);
        }
        List<String> chosen = new ArrayList<>();
        for (String entry : text.split(File.pathSeparator)) {
            String name = Paths.get(entry).getFileName().toString();
            boolean demoClasses = entry.replace('\\', '/').contains("demo-app/target/classes");
            if ((byFileName.test(name) && (!name.equals("classes") || demoClasses))) {
                chosen.add(entry);
            }
        }
        return chosen;
    }

    /** The jars in one of the folders the pom copies client versions into, e.g. {@code okhttp-3}. */
    public static List<String> folder(String name) {
        Path dir = Paths.get(System.getProperty("okhttp.folders", "target"), name);
        try (Stream<Path> jars = Files.list(dir)) {
            List<String> entries = jars.filter(jar -> jar.toString().endsWith(".jar")).map(jar -> jar.toAbsolutePath().toString())
                    .sorted().collect(Collectors.toList());
            if (entries.isEmpty()) {
                throw new IllegalStateException("no jars in " + dir.toAbsolutePath() + ": build with mvn verify");
            }
            return entries;
        } catch (IOException e) {
            throw new UncheckedIOException("no folder " + dir.toAbsolutePath() + ": build with mvn verify", e);
        }
    }

    /** This module's compiled test classes: the small test applications. */
    public static String testClasses() {
        return System.getProperty("test.classes", "target/test-classes");
    }
}
