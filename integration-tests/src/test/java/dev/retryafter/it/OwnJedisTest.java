package dev.retryafter.it;

import dev.retryafter.agent.store.redis.RedisServer;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An application with its own Jedis (5.2, where the agent carries 8.0.2, relocated) and the agent
 * with {@code store = redis://...}, both on one real redis-server: each client works, the
 * application's Jedis classes are the ones on its class path, and the agent's are out of its sight.
 * Java 17 only: what is tested is the agent jar's relocation, the same on every JDK.
 */
class OwnJedisTest {

    @Test
    void anApplicationWithItsOwnJedisKeepsItWhileTheAgentUsesRedis() throws Exception {
        try (RedisServer redis = RedisServer.start();
             PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 2, 1_000))) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, "default.min-sleep = 300ms\ndefault.max-sleep = 1s\ndefault.window = 1s\ndefault.max-attempts = 8\n"
                    + "store = redis://127.0.0.1:" + redis.port() + "\nstore-timeout = 2s\nfleet = ownjedis\n");
            ChildJvm jvm = new ChildJvm(Jdk.JAVA_17).withAgent(policy.toString()).classpathEntry(TestClasspath.testClasses());
            for (String jar : TestClasspath.folder("jedis-5")) {
                jvm.classpathEntry(jar);
            }
            ChildJvm.Result run = jvm.main("dev.retryafter.it.apps.OwnJedisApp", Integer.toString(redis.port()), portal.baseUrl()).run();

            assertEquals(0, run.exitCode, run::toString);
            assertTrue(run.stdout.contains("app jedis from ") && run.stdout.contains("jedis-5.2.0.jar"),
                    () -> "the application's Jedis is its own 5.2.0\n" + run);
            assertTrue(run.stdout.contains("app jedis loader is the application's: true"), run::toString);
            assertEquals(2, run.stdout.lines().filter(l -> l.equals("app read hello") || l.equals("app read again hello")).count(),
                    () -> "the application's own Jedis works, before and after the agent used Redis\n" + run);
            assertEquals(4, run.stdout.lines().filter(l -> l.equals("app got 200")).count(), () -> "every request got through\n" + run);
            assertTrue(run.stdout.contains("app sees agent keys: true"), () -> "the agent's store wrote to the same Redis\n" + run);
            assertTrue(portal.stats().refusals > 0, "the agent had something to do");
            assertFalse(run.stderr.contains("Exception") || run.stderr.contains("\tat "), () -> "no exception\n" + run);
        }
    }
}
