package dev.retryafter.it.cost;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.TestClasspath;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The agent jar and this package's classes, copied once at the start of a run, and every child JVM
 * run from the copies: what is measured is the jar the report names, even when a build replaces the
 * original half-way through (someone's {@code mvn install} on a shared machine, or one's own).
 *
 * @param agentSource where the jar was built
 * @param agentJar    the copy the children use
 * @param classes     a class path folder holding this package's compiled classes, the children's main classes
 */
record Snapshot(Path agentSource, Path agentJar, Path classes) {

    static Snapshot take() throws IOException {
        Path source = ChildJvm.agentJar();
        Path folder = Files.createTempDirectory(ChildJvm.workDir(), "cost-snapshot-");
        Path jar = folder.resolve(source.getFileName());
        Files.copy(source, jar);
        requireAgent(jar, source);
        String pkg = Snapshot.class.getPackageName().replace('.', '/');
        Path classes = folder.resolve("classes");
        copyFiles(Path.of(TestClasspath.testClasses()).resolve(pkg), classes.resolve(pkg));
        return new Snapshot(source, jar, classes);
    }

    /** {@code -javaagent:} the copy, with {@code argument} when there is one. */
    String javaagent(String argument) {
        return "-javaagent:" + agentJar + (argument == null ? "" : "=" + argument);
    }

    long agentJarBytes() throws IOException {
        return Files.size(agentJar);
    }

    /** A jar caught half-written has no manifest yet: better to stop here than to measure JVMs that fail to start. */
    private static void requireAgent(Path jar, Path source) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            if (file.getManifest() == null || file.getManifest().getMainAttributes().getValue("Premain-Class") == null) {
                throw new IOException(source + " has no Premain-Class: is it being rebuilt? Run again once the build is done");
            }
        }
    }

    private static void copyFiles(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        List<Path> files;
        try (Stream<Path> listing = Files.list(from)) {
            files = listing.filter(Files::isRegularFile).toList();
        }
        for (Path file : files) {
            Files.copy(file, to.resolve(file.getFileName()));
        }
    }
}
