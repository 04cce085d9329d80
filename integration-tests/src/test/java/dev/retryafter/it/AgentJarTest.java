package dev.retryafter.it;

import dev.retryafter.it.harness.ChildJvm;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The jar an application's JVM loads: nothing of the agent's own dependencies visible under its
 * original name, the Java 24 multi-release classes included (maven-shade leaves their paths
 * unrelocated unless told, MSHADE-406), and the manifest an agent needs.
 */
class AgentJarTest {

    /**
     * Java 8 bytecode but for what governs java.net.http (Java 11, loaded only there), the command line's
     * attach and status (Java 9, loaded only there: {@code java -jar}), the bootstrap definer (Java 9, loaded only
     * there) and Byte Buddy's multi-release classes; the entry class Java 7's, so an older JVM gets a line, not an error that
     * ends it (javac 20 and later no longer write Java 7: then 8).
     */
    @Test
    void everyClassLoadsOnJava8ButJavaNetHttpsAndTheEntryOnJava7() throws Exception {
        List<String> tooNew = new ArrayList<>();
        int javaNetHttp = 0;
        int commandLine = 0;
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            for (JarEntry entry : java.util.Collections.list(jar.entries())) {
                String name = entry.getName();
                if (!name.endsWith(".class") || name.startsWith("META-INF/versions/")) {
                    continue;
                }
                int major = majorVersion(jar, entry);
                if (name.equals("dev/retryafter/agent/instrument/jdk/JdkModule.class")) {
                    if (major > 52) { // its targets are read at start-up on every Java
                        tooNew.add(name + " (" + major + ")");
                    }
                } else if (name.startsWith("dev/retryafter/agent/instrument/jdk/")) {
                    javaNetHttp++;
                    if (major != 55) {
                        tooNew.add(name + " (" + major + ", not Java 11's 55)");
                    }
                } else if (name.startsWith("dev/retryafter/agent/cli/attach/")) {
                    commandLine++;
                    if (major != 53) {
                        tooNew.add(name + " (" + major + ", not Java 9's 53)");
                    }
                } else if (name.equals("dev/retryafter/agent/bootstrap/BootstrapDefiner.class") || name.equals("dev/retryafter/agent/AgentPropertiesReader.class")
                        || name.equals("dev/retryafter/agent/PerfStringMaker.class")) {
                    if (major != 53) { // Java 9's, loaded only there, in a class loader of its own
                        tooNew.add(name + " (" + major + ", not Java 9's 53)");
                    }
                } else if (name.equals("dev/retryafter/agent/AgentEntry.class")) {
                    if (major > 52) {
                        tooNew.add(name + " (" + major + ")");
                    }
                } else if (major > 52) {
                    tooNew.add(name + " (" + major + ")");
                }
            }
            assertTrue(javaNetHttp > 0, "the java.net.http classes are in the jar, so this could fail");
            assertTrue(commandLine > 0, "the command line's classes are in the jar, so this could fail");
            assertEquals(List.of(), tooNew, "classes a Java 8 JVM could not load outside instrument/jdk, cli/attach and the bootstrap definer");
            int entryMajor = majorVersion(jar, jar.getJarEntry("dev/retryafter/agent/AgentEntry.class"));
            assertTrue(entryMajor == 51 || Runtime.version().feature() >= 20, "the entry class is Java 7's: " + entryMajor);
        }
    }

    private static int majorVersion(JarFile jar, JarEntry entry) throws java.io.IOException {
        try (java.io.DataInputStream in = new java.io.DataInputStream(jar.getInputStream(entry))) {
            in.readInt(); // magic
            in.readUnsignedShort(); // minor
            return in.readUnsignedShort();
        }
    }

    @Test
    void everyClassIsUnderTheAgentsOwnPackage() throws Exception {
        List<String> outside = new ArrayList<>();
        int versioned = 0;
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            for (JarEntry entry : java.util.Collections.list(jar.entries())) {
                String name = entry.getName();
                if (!name.endsWith(".class")) {
                    continue;
                }
                String path = name.startsWith("META-INF/versions/") ? name.replaceFirst("META-INF/versions/\\d+/", "") : name;
                versioned += path.equals(name) ? 0 : 1;
                if (!path.startsWith("dev/retryafter/agent/") || path.endsWith("module-info.class")) {
                    outside.add(name);
                }
            }
            assertTrue(versioned > 0, "Byte Buddy's multi-release classes are in the jar, so this could fail");
            assertEquals(List.of(), outside, "classes an application would see under their original names");
            assertTrue(jar.getEntry("META-INF/services/org.slf4j.spi.SLF4JServiceProvider") == null,
                    "no slf4j provider an application's slf4j would find");
            Manifest manifest = jar.getManifest();
            assertEquals("dev.retryafter.agent.AgentEntry", manifest.getMainAttributes().getValue("Premain-Class"));
            assertEquals("dev.retryafter.agent.AgentEntry", manifest.getMainAttributes().getValue("Agent-Class"));
            assertEquals("true", manifest.getMainAttributes().getValue("Can-Retransform-Classes"));
        }
    }
}
