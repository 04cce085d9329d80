package dev.retryafter.demo;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Where the demo finds the agent, the policies and the scraper, and how it scrapes. */
public final class DemoOptions {

    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    Path agentJar = Paths.get("agent/target/retry-after-agent.jar");
    Path policies = Paths.get("demo-app/policies.properties");
    String classpath;
    Path workDir = Paths.get("demo-app/target/demo");
    String client = "jdk";
    int records = 60;
    int threads = 2;
    boolean withoutAgentToo = true;

    /**
     * The {@code java} of a feature release: this JVM's if it is that release; else where
     * {@code .ci/install-jdks} puts 8, 11 and 21 ({@code $RETRY_AFTER_JDKS}, or
     * {@code ~/.cache/retry-after-agent/jdks}); else a JDK of the machine's in {@code /usr/lib/jvm}.
     */
    public static Path javaOfRelease(int feature) {
        if (Runtime.version().feature() == feature) {
            return Paths.get(System.getProperty("java.home"), "bin", "java");
        }
        String cache = System.getenv("RETRY_AFTER_JDKS");
        List<Path> homes = new ArrayList<>();
        homes.add(cache != null ? Paths.get(cache, "openjdk-" + feature, "home")
                : Paths.get(System.getProperty("user.home"), ".cache", "retry-after-agent", "jdks", "openjdk-" + feature, "home"));
        homes.add(Paths.get("/usr/lib/jvm", "temurin-" + feature + "-jdk-amd64"));
        homes.add(Paths.get("/usr/lib/jvm", "java-" + feature + "-openjdk-amd64"));
        for (Path home : homes) {
            Path java = home.resolve("bin").resolve("java");
            if (Files.isExecutable(java)) {
                return java;
            }
        }
        throw new IllegalArgumentException("no Java " + feature + " in " + homes + ": run .ci/install-jdks, or pass --java PATH");
    }

    /**
     * The environment the scraper's JVM needs: a JDK that {@code .ci/install-jdks} gave a glibc of its
     * own names its folder in {@code <home>/ld-library-path}, for that JVM alone.
     */
    Map<String, String> javaEnvironment() throws IOException {
        Path home = java.toAbsolutePath().getParent().getParent();
        Path file = home.resolve("ld-library-path");
        Map<String, String> environment = new HashMap<>();
        if (Files.isRegularFile(file)) {
            environment.put("LD_LIBRARY_PATH", new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim());
        }
        return environment;
    }

    /**
     * {@code --client jdk|jdk-async|apache5|apache5-async|apache4|apache4-async|urlconnection|okhttp|okhttp-async|jetty
     * |commons3|asynchttpclient|vertx|spring-webclient --records 40 --threads 2
     * --agent PATH --policies PATH --java PATH|8|11|17|21|25 --agent-only}. {@code --java} with a number finds
     * that Java as the build does: {@code .ci/install-jdks}' cache for 8, 11 and 21.
     */
    static DemoOptions parse(String[] args) throws IOException {
        DemoOptions options = new DemoOptions();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--agent-only")) {
                options.withoutAgentToo = false;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            String value = args[++i];
            switch (name) {
                case "--client":
                    options.client = value;
                    break;
                case "--records":
                    options.records = Integer.parseInt(value);
                    break;
                case "--threads":
                    options.threads = Integer.parseInt(value);
                    break;
                case "--agent":
                    options.agentJar = Paths.get(value);
                    break;
                case "--policies":
                    options.policies = Paths.get(value);
                    break;
                case "--java":
                    options.java = value.matches("\\d+") ? javaOfRelease(Integer.parseInt(value)) : Paths.get(value);
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + name);
            }
        }
        return options.resolved();
    }

    /** Builder-style use from tests. */
    public static DemoOptions of(Path agentJar, Path policies, String classpath, Path workDir, String client) throws IOException {
        DemoOptions options = new DemoOptions();
        options.agentJar = agentJar;
        options.policies = policies;
        options.classpath = classpath;
        options.workDir = workDir;
        options.client = client;
        options.withoutAgentToo = false;
        return options.resolved();
    }

    /** The scraper's JVM. */
    public DemoOptions java(Path java) {
        this.java = java;
        return this;
    }

    public DemoOptions records(int records) {
        this.records = records;
        return this;
    }

    public DemoOptions withoutAgentToo(boolean both) {
        this.withoutAgentToo = both;
        return this;
    }

    private DemoOptions resolved() throws IOException {
        if (!Files.isRegularFile(agentJar)) {
            throw new IllegalArgumentException("no agent jar at " + agentJar.toAbsolutePath()
                    + ": build it first (mvn -B -q package -DskipTests), or pass --agent PATH");
        }
        if (!Files.isRegularFile(policies)) {
            throw new IllegalArgumentException("no policy file at " + policies.toAbsolutePath() + "; pass --policies PATH");
        }
        if (classpath == null) {
            classpath = scraperClasspath(Paths.get(""));
        }
        Files.createDirectories(workDir);
        return this;
    }

    /** This module's classes and the class path Maven resolved for them (written at build time), in the build at {@code root}. */
    public static String scraperClasspath(Path root) throws IOException {
        Path resolved = root.resolve("demo-app/target/runtime-classpath.txt");
        if (!Files.isRegularFile(resolved)) {
            throw new IllegalArgumentException("no " + resolved + ": build the demo first (mvn -B -q package -DskipTests)");
        }
        String dependencies = new String(Files.readAllBytes(resolved), StandardCharsets.UTF_8).trim();
        return root.resolve("demo-app/target/classes").toAbsolutePath().normalize() + File.pathSeparator + dependencies;
    }
}
