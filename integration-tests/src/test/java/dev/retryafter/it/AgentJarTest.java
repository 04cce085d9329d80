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
            assertEquals("dev.retryafter.agent.RetryAfterAgent", manifest.getMainAttributes().getValue("Premain-Class"));
            assertEquals("dev.retryafter.agent.RetryAfterAgent", manifest.getMainAttributes().getValue("Agent-Class"));
            assertEquals("true", manifest.getMainAttributes().getValue("Can-Retransform-Classes"));
        }
    }
}
