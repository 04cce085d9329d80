package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.demo.scraper.ScraperResult;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.stream.Stream;

import static dev.retryafter.it.LyingHeadersTest.MIN_SLEEP;
import static dev.retryafter.it.LyingHeadersTest.POLICY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spring's {@code RestTemplate} on both request factories that use Apache, against lying portals,
 * and the null target they may pass, without Spring.
 * Spring 6's calls {@code executeOpen(null, request, context)}: a null target, which the agent once
 * left ungoverned, so Apache 5's own strategy slept a whole {@code Retry-After: 3600}.
 */
@Execution(ExecutionMode.CONCURRENT)
class SpringRestTemplateTest {

    static final int RECORDS = 12;
    /** Max-sleep is 1.5 s; a gap of a minute can only be a machine far too busy, never the hour asked for. */
    static final long NO_HOUR_LONG_SLEEP_MILLIS = 60_000;

    /** Spring 6.2 (a test dependency) with Apache 5; Spring 5.3 (copied by the build) with Apache 4. */
    enum Spring {
        SPRING6_APACHE5, SPRING5_APACHE4;

        ChildJvm classpath(ChildJvm jvm) throws IOException {
            if (this == SPRING6_APACHE5) {
                jvm.classpath(name -> name.startsWith("spring-") || name.startsWith("micrometer-") || name.startsWith("httpclient5")
                        || name.startsWith("httpcore5") || name.startsWith("slf4j-api"));
            } else {
                Path jars = Paths.get(System.getProperty("spring5.jars", "target/spring5"));
                try (Stream<Path> list = Files.list(jars)) {
                    list.filter(jar -> jar.toString().endsWith(".jar")).forEach(jar -> jvm.classpathEntry(jar.toString()));
                }
                jvm.classpath(name -> name.startsWith("httpclient-4") || name.startsWith("httpcore-4")
                        || name.startsWith("commons-logging") || name.startsWith("commons-codec"));
            }
            return jvm.classpathEntry(TestClasspath.testClasses());
        }
    }

    /** The same null target without Spring: Apache 5's executeOpen(null, ...), Apache 4's default-host parameter. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"apache5", "apache4"})
    void aNullTargetIsWorkedOutAsTheClientDoes(String client) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 5, 1_000))) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, POLICY);
            ChildJvm.Result result = new ChildJvm(Jdk.JAVA_17).classpath(TestClasspath.SCRAPER).classpathEntry(TestClasspath.testClasses())
                    .withAgent("config=" + policy).timeout(Duration.ofSeconds(240))
                    .main("dev.retryafter.it.apps.NullTargetApp", client, portal.baseUrl(), Integer.toString(RECORDS)).run();
            ScraperResult run = ScraperResult.parse(result.stdout);
            PortalStats stats = portal.stats();

            assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + stats + "\n" + result);
            assertTrue(stats.refusals > 0, "the portal refused, so this test could fail: " + stats);
            assertTrue(result.stderr.contains("Retry-After=\"0\""), () -> "the agent decided on the refusals\n" + result);
            assertTrue(stats.shortestGapAfterAnyRefusalMillis >= MIN_SLEEP, () -> stats + "\n" + result);
        }
    }

    static Stream<Arguments> springsAndLies() {
        return Stream.of(Spring.values()).flatMap(spring -> Stream.of(
                Arguments.of(spring, Behaviour.ALWAYS_ZERO), Arguments.of(spring, Behaviour.CONSTANT_OVERSTATED)));
    }

    @ParameterizedTest(name = "{0} against {1}")
    @MethodSource("springsAndLies")
    void restTemplateIsGovernedOnBothApacheFactories(Spring spring, Behaviour lie) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(lie, 5, 1_000))) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, POLICY);
            // Ungoverned, Apache 5's own strategy sleeps 3600 s: the timeout is generous, and still far from that.
            ChildJvm jvm = spring.classpath(new ChildJvm(Jdk.JAVA_17)).withAgent("config=" + policy)
                    .timeout(Duration.ofSeconds(240)).main("dev.retryafter.it.apps.RestTemplateApp", portal.baseUrl(), Integer.toString(RECORDS));
            ChildJvm.Result result = jvm.run();
            ScraperResult run = ScraperResult.parse(result.stdout);
            PortalStats stats = portal.stats();

            assertEquals(0, result.exitCode, () -> result.toString());
            assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + stats + "\n" + result);
            assertTrue(stats.refusals > 0, "the portal refused, so this test could fail: " + stats);
            assertTrue(result.stderr.contains("Retry-After="), () -> "the agent decided on the refusals\n" + result);
            assertTrue(stats.shortestGapAfterAnyRefusalMillis >= MIN_SLEEP, () -> stats + "\n" + result);
            assertTrue(stats.longestGapBetweenOwnRequestsMillis < NO_HOUR_LONG_SLEEP_MILLIS,
                    () -> "no Retry-After: 3600 sleep, as the portal saw it: " + stats + "\n" + result);
        }
    }
}
