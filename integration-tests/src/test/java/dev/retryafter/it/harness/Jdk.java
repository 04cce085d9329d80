package dev.retryafter.it.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A JDK that child JVMs run on. Both are tested; one that is missing is skipped loudly, never silently. */
public enum Jdk {
    JAVA_17("java17.home", 17),
    JAVA_25("java25.home", 25);

    private final String property;
    private final int feature;

    Jdk(String property, int feature) {
        this.property = property;
        this.feature = feature;
    }

    public Path java() {
        return Paths.get(System.getProperty(property, System.getProperty("java.home")), "bin", "java");
    }

    /** Installed, and the Java version its name says: a JDK of another version would test nothing of this one. */
    public boolean isAvailable() {
        return Files.isExecutable(java()) && feature == installedFeature();
    }

    /** Skips the calling test, with a banner on standard error, when this JDK is not installed. */
    public Path javaOrSkip() {
        if (!isAvailable()) {
            System.err.println("\n!!!!!!!! " + this + " NOT FOUND at " + java() + " (found Java " + installedFeature()
                    + "): tests on it are SKIPPED. Set -D" + property + "=<JDK " + feature + " home> to run them. !!!!!!!!\n");
        }
        assumeTrue(isAvailable(), this + " is not installed at " + java());
        return java();
    }

    /** The feature release the JDK's {@code release} file names; 0 when there is none to read. */
    private int installedFeature() {
        Path release = java().getParent().getParent().resolve("release");
        try {
            for (String line : Files.readAllLines(release)) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    int dot = version.indexOf('.');
                    return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    public static List<Jdk> all() {
        return List.of(values());
    }
}
