package dev.retryafter.it.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A JDK that child JVMs run on. Both are tested; one that is missing is skipped loudly, never silently. */
public enum Jdk {
    JAVA_17("java17.home"),
    JAVA_25("java25.home");

    private final String property;

    Jdk(String property) {
        this.property = property;
    }

    public Path java() {
        return Paths.get(System.getProperty(property, System.getProperty("java.home")), "bin", "java");
    }

    public boolean isAvailable() {
        return Files.isExecutable(java());
    }

    /** Skips the calling test, with a banner on standard error, when this JDK is not installed. */
    public Path javaOrSkip() {
        if (!isAvailable()) {
            System.err.println("\n!!!!!!!! " + this + " NOT FOUND at " + java() + ": tests on it are SKIPPED."
                    + " Set -D" + property + "=<JDK home> to run them. !!!!!!!!\n");
        }
        assumeTrue(isAvailable(), this + " is not installed at " + java());
        return java();
    }

    public static List<Jdk> all() {
        return List.of(values());
    }
}
