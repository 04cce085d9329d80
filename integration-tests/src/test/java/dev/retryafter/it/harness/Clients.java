package dev.retryafter.it.harness;

import org.junit.jupiter.params.provider.Arguments;

import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** The clients the agent governs, as the legacy scraper names them, for parameterised tests. */
public final class Clients {

    /**
     * {@code send}, {@code sendAsync}, Apache 5 and Apache 4; {@code HttpURLConnection} plain, through
     * jsoup and through Spring's {@code RestTemplate}; OkHttp 3.14, 4.12 and 5.x, {@code execute} and {@code enqueue}.
     * A client the agent comes to govern joins here, and {@link Jdk#supports}.
     */
    public static final List<String> GOVERNED = List.of("jdk", "jdk-async", "apache5", "apache4",
            "urlconnection", "jsoup", "resttemplate",
            "okhttp3", "okhttp3-async", "okhttp", "okhttp-async", "okhttp5", "okhttp5-async");

    /** OkHttp 4.12 comes with the demo; 3.14 and 5.x are copied into folders of their own (see the pom). */
    private static final Predicate<String> OKHTTP4 = name -> name.startsWith("okhttp-") || name.startsWith("okio")
            || name.startsWith("kotlin-stdlib") || name.startsWith("annotations-");

    private Clients() {
    }

    /** The blocking adapters, which legacy scrapers on every Java use: these run on all five JDKs. */
    public static final List<String> ON_EVERY_JDK = List.of("jdk", "apache5", "apache4", "urlconnection", "okhttp");

    /**
     * {@link #ON_EVERY_JDK} on every JDK that runs it (java.net.http on 11 and later), and every governed
     * client (the asynchronous paths, the libraries and the other OkHttp majors) on the build's JDK and the
     * newest: {@code @MethodSource("dev.retryafter.it.harness.Clients#onEveryJdk")}. Every client on all
     * five would multiply the suite's child JVMs past what two cores run in CI's time.
     */
    public static Stream<Arguments> onEveryJdk() {
        return Jdk.all().stream().flatMap(jdk -> GOVERNED.stream()
                .filter(client -> isMainJdk(jdk) || ON_EVERY_JDK.contains(client) && jdk.supports(client))
                .map(client -> Arguments.of(jdk, client)));
    }

    private static boolean isMainJdk(Jdk jdk) {
        return jdk == Jdk.JAVA_17 || jdk == Jdk.JAVA_25;
    }

    /** The client a test that needs just one uses on {@code jdk}: java.net.http where there is one, else Apache 4. */
    public static String plainOn(Jdk jdk) {
        return jdk.supports("jdk") ? "jdk" : "apache4";
    }

    /** What the scraper's {@code --client} is for a client named here. */
    public static String scraperArgument(String client) {
        switch (client) {
            case "okhttp3":
            case "okhttp5":
                return "okhttp";
            case "okhttp3-async":
            case "okhttp5-async":
                return "okhttp-async";
            case "jsoup":
                return "dev.retryafter.it.apps.JsoupFetcher";
            case "resttemplate":
                return "dev.retryafter.it.apps.RestTemplateFetcher";
            default:
                return client;
        }
    }

    /** Puts the scraper and this client's jars, and only those, on the child JVM's class path. */
    public static ChildJvm onClasspath(ChildJvm jvm, String client) {
        if (client.startsWith("okhttp3") || client.startsWith("okhttp5")) {
            jvm.classpath(TestClasspath.SCRAPER.and(OKHTTP4.negate()));
            TestClasspath.folder("okhttp-" + client.charAt(6)).forEach(jvm::classpathEntry);
            return jvm;
        }
        jvm.classpath(TestClasspath.SCRAPER);
        if (client.equals("jsoup")) {
            jvm.classpath(name -> name.startsWith("jsoup-")).classpathEntry(TestClasspath.testClasses());
        } else if (client.equals("resttemplate")) {
            jvm.classpath(name -> name.startsWith("spring-") || name.startsWith("micrometer-")).classpathEntry(TestClasspath.testClasses());
        }
        return jvm;
    }

    /** One client per adapter path: the libraries and other OkHttp majors run the same code as these. */
    public static final List<String> ONE_PER_ADAPTER = List.of("jdk", "jdk-async", "apache5", "apache4",
            "urlconnection", "okhttp", "okhttp-async");

    /** {@link #ONE_PER_ADAPTER} on the build's JDK and the newest, {@link #ON_EVERY_JDK} on the others: for the slower scenarios. */
    public static Stream<Arguments> onePerAdapterOnEveryJdk() {
        return Jdk.all().stream().flatMap(jdk -> ONE_PER_ADAPTER.stream()
                .filter(client -> isMainJdk(jdk) || ON_EVERY_JDK.contains(client) && jdk.supports(client))
                .map(client -> Arguments.of(jdk, client)));
    }
}
