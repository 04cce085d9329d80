package dev.retryafter.it.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A JDK that child JVMs run on: every long-term-support Java a scraper runs on. 17 is the one the
 * build runs on, 25 the machine's Temurin; 8, 11 and 21 come from Debian's archives through
 * {@code .ci/install-jdks}. One that is missing, or is not the version its name says, is skipped
 * loudly, never silently.
 */
public enum Jdk {
    JAVA_8("java8.home", 8),
    JAVA_11("java11.home", 11),
    JAVA_17("java17.home", 17),
    JAVA_21("java21.home", 21),
    JAVA_25("java25.home", 25);

    /** {@code java -version}'s first line: {@code openjdk version "1.8.0_504"}, {@code "21.0.13" 2026-10-20}. */
    private static final Pattern VERSION = Pattern.compile("version \"(?:1\\.)?(\\d+)");

    private final String property;
    private final int feature;
    private volatile Integer installed;

    Jdk(String property, int feature) {
        this.property = property;
        this.feature = feature;
    }

    public int feature() {
        return feature;
    }

    public Path home() {
        return Paths.get(System.getProperty(property, System.getProperty("java.home")));
    }

    public Path java() {
        return home().resolve("bin").resolve("java");
    }

    /**
     * Whether the legacy scraper's {@code client} runs on this Java: {@code java.net.http} needs 11;
     * Apache 4 and 5 run on 8. A client the agent comes to govern gets its line here.
     */
    public boolean supports(String client) {
        switch (client) {
            case "jdk":
            case "jdk-async":
                return feature >= 11;
            case "apache5":
            case "apache5-default":
            case "apache4":
            case "apache4-literal":
            case "apache4-legacy":
                return true;
            // HttpURLConnection (all five) and OkHttp (8 and later) go here as they are added.
            default:
                throw new IllegalArgumentException("no Java versions known for client " + client);
        }
    }

    /**
     * What the JVM needs in its environment, for its own process alone: a JDK built for a newer glibc
     * than the machine's names the folder of the glibc extracted beside it (see {@code .ci/install-jdks}).
     */
    public Map<String, String> environment() {
        Path file = home().resolve("ld-library-path");
        if (!Files.isRegularFile(file)) {
            return Map.of();
        }
        try {
            return Map.of("LD_LIBRARY_PATH", Files.readString(file).trim());
        } catch (IOException e) {
            return Map.of();
        }
    }

    /** Installed, runs, and is the Java version its name says: a JDK of another version would test nothing of this one. */
    public boolean isAvailable() {
        return Files.isExecutable(java()) && feature == installedFeature();
    }

    /**
     * Skips the calling test, with a banner on standard error, when this JDK is not installed; fails
     * it in CI ({@code CI=true}), where a JDK that went missing must not pass as a green run.
     */
    public Path javaOrSkip() {
        if (!isAvailable()) {
            boolean ci = "true".equals(System.getenv("CI"));
            System.err.println("\n!!!!!!!! " + this + " NOT FOUND at " + java() + " (found Java " + installedFeature()
                    + "): tests on it are " + (ci ? "FAILED (CI=true)" : "SKIPPED") + ". Run .ci/install-jdks, or set -D"
                    + property + "=<JDK " + feature + " home>, to run them. !!!!!!!!\n");
            if (ci) {
                throw new AssertionError(this + " is not installed at " + java() + ", and CI=true");
            }
        }
        assumeTrue(isAvailable(), this + " is not installed at " + java());
        return java();
    }

    /** The feature release the JVM itself reports, run once; 0 when it does not run. */
    private int installedFeature() {
        Integer known = installed;
        if (known == null) {
            known = run();
            installed = known;
        }
        return known;
    }

    private int run() {
        if (!Files.isExecutable(java())) {
            return 0;
        }
        try {
            ProcessBuilder builder = new ProcessBuilder(java().toString(), "-version").redirectErrorStream(true);
            builder.environment().putAll(environment());
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                return 0;
            }
            Matcher m = VERSION.matcher(output);
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    public static List<Jdk> all() {
        return List.of(values());
    }

    /**
     * The oldest, the build's own and the newest: for tests of what a client library or the agent's
     * configuration does, which is the same on every JVM, so that five JDKs do not multiply them
     * (every JDK still runs the tests of what the agent does to the JVM: loading, instrumenting,
     * governing each client). {@code @MethodSource("dev.retryafter.it.harness.Jdk#spread")}.
     */
    public static List<Jdk> spread() {
        return List.of(JAVA_8, JAVA_17, JAVA_25);
    }

    /** The JDKs {@code client} runs on. */
    public static List<Jdk> supporting(String client) {
        return all().stream().filter(jdk -> jdk.supports(client)).toList();
    }
}
