package dev.retryafter.it;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.TestClasspath;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Traffic through a client the agent does not govern is named at exit, in one line, the first time. */
@Execution(ExecutionMode.CONCURRENT)
class UngovernedTrafficTest {

    private static List<String> lines(ChildJvm.Result run, String text) {
        return run.agentLines().stream().filter(line -> line.contains(text)).collect(Collectors.toList());
    }

    /**
     * Apache's async client, once the example of traffic named at exit, is governed now: its requests count as
     * governed and nothing is said. (The exit line's naming of an ungoverned client is UngovernedClientsTest's.)
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"}) // its apps are Java 17 bytecode
    void apachesAsyncClientIsGovernedAndNotNamedAtExit(Jdk jdk) throws Exception {
        assertGovernedAndNotNamed(jdk, name -> name.startsWith("httpclient5") || name.startsWith("httpcore5") || name.startsWith("slf4j-api"),
                "dev.retryafter.it.apps.AsyncClient5App");
    }

    /** Apache's async client 4.1, once the example of traffic named at exit, is governed now: nothing is said. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"}) // its apps are Java 17 bytecode
    void apachesAsyncClient4IsGovernedAndNotNamedAtExit(Jdk jdk) throws Exception {
        assertGovernedAndNotNamed(jdk, name -> name.startsWith("httpasyncclient") || name.startsWith("httpcore-")
                || name.startsWith("httpclient-4") || name.startsWith("commons-logging"), "dev.retryafter.it.apps.Async4App");
    }

    /** AsyncHttpClient 3 (on Netty), once the example of traffic named at exit, is governed now: neither it nor its Netty is named. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"}) // its apps are Java 17 bytecode
    void asyncHttpClientIsGovernedAndNotNamedAtExit(Jdk jdk) throws Exception {
        assertGovernedAndNotNamed(jdk, name -> name.startsWith("async-http-client") || name.startsWith("netty-") || name.startsWith("slf4j-api")
                || name.startsWith("reactive-streams") || name.startsWith("jakarta.activation"), "dev.retryafter.it.apps.AhcGetApp");
    }

    /** Netty's own HTTP codec in a pipeline of the application's, which the agent does not govern: named when it loads, and at exit. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"}) // its apps are Java 17 bytecode
    void nettysOwnCodecIsNamedWhenItLoadsAndAtExit(Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.ok())) {
            Path report = Files.createTempFile(ChildJvm.workDir(), "report-", ".json");
            ChildJvm.Result run = new ChildJvm(jdk).withAgent("report=" + report)
                    .classpath(name -> name.startsWith("netty-") || name.startsWith("slf4j-api"))
                    .classpathEntry(TestClasspath.testClasses())
                    .main("dev.retryafter.it.apps.UngovernedNettyApp", server.url("/records/1"), server.url("/records/2"))
                    .run();
            assertEquals(0, run.exitCode, run::toString);
            assertEquals(2, server.requests(), "the app's two requests, sent");
            List<String> early = lines(run, "ungoverned HTTP client loaded: ");
            assertEquals(1, early.size(), () -> "said when it loads, not only at exit\n" + run);
            assertTrue(early.get(0).contains("Netty HTTP codec (io.netty.handler.codec.http.HttpClientCodec)"), early::toString);
            List<String> named = lines(run, "ungoverned HTTP: ");
            assertEquals(1, named.size(), run::toString);
            assertTrue(named.get(0).contains("Netty HTTP codec"), named::toString);
            assertTrue(named.get(0).contains("no request was governed at all"), named::toString);
            assertTrue(run.agentLines().indexOf(early.get(0)) < run.agentLines().indexOf(named.get(0)), run::toString);
            assertTrue(Files.readString(report).contains("\"ungoverned\": \"ungoverned HTTP: this JVM loaded Netty HTTP codec"),
                    "the JSON report says so too");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"}) // its apps are Java 17 bytecode
    void governedTrafficAloneIsNotWarnedAbout(Jdk jdk) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.TRUTHFUL, 100, 1_000))) {
            ScraperRun run = ScraperRun.run(jdk, LyingHeadersTest.POLICY, "urlconnection", portal.baseUrl(), 3);
            assertEquals(3, run.fetched, run::toString);
            assertFalse(run.jvm.stderr.contains("ungoverned"), run::toString);
            assertFalse(run.jvm.stderr.contains("no request was governed"), run::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"}) // its apps are Java 17 bytecode
    void noGovernedRequestAtAllIsSaid(Jdk jdk) throws Exception {
        ChildJvm.Result run = new ChildJvm(jdk).withAgent(null).classpathEntry(TestClasspath.testClasses())
                .main("dev.retryafter.it.apps.NoHttpApp").run();
        assertEquals(1, lines(run, "no request was governed").size(), run::toString);
    }

    /** {@code app}'s two requests on {@code jdk}, its client's jars picked by {@code jars}: sent, governed, and nothing named. */
    private static void assertGovernedAndNotNamed(Jdk jdk, Predicate<String> jars, String app) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.ok())) {
            Path report = Files.createTempFile(ChildJvm.workDir(), "report-", ".json");
            ChildJvm.Result run = new ChildJvm(jdk).withAgent("report=" + report).classpath(jars)
                    .classpathEntry(TestClasspath.testClasses())
                    .main(app, server.url("/records/1"), server.url("/records/2"))
                    .run();
            assertEquals(0, run.exitCode, run::toString);
            assertEquals(2, server.requests(), "the app's two requests, sent");
            assertEquals(0, lines(run, "ungoverned HTTP").size(), run::toString);
            assertEquals(0, lines(run, "no request was governed").size(), run::toString);
        }
    }
}
