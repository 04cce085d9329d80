package dev.retryafter.it;

import dev.retryafter.demo.AgentReport;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.ScraperRun;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.ShadedScraperJar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scraper shipped as a fat jar whose HTTP client is relocated ({@code shaded.org.apache.http},
 * {@code shaded.org.apache.hc}, {@code shaded.okhttp3}, {@code shaded.org.asynchttpclient}, {@code shaded.com.squareup.okhttp}),
 * synchronous and asynchronous, the agent attached, against the lying loopback portals: the relocated
 * client is governed as the original is. Without the agent the same jar loses records, so these tests can fail.
 */
@Execution(ExecutionMode.CONCURRENT)
class RelocatedClientsTest {

    static final long MIN_SLEEP = 1_000;
    static final String POLICY = "default.min-sleep = " + MIN_SLEEP + "ms\n"
            + "default.max-sleep = 3s\n"
            + "default.window = 2s\n"
            + "default.max-attempts = 10\n";
    static final int RECORDS = 40;

    private static ChildJvm fatJar() throws Exception {
        return new ChildJvm(Jdk.JAVA_17).classpathEntry(ShadedScraperJar.get().toString());
    }

    @Test
    void theFatJarHoldsTheClientsRelocatedOnly() throws Exception {
        assertRelocatedOnly(ShadedScraperJar.get(), "org/apache/http/impl/client/InternalHttpClient.class",
                "okhttp3/internal/http/RetryAndFollowUpInterceptor.class", "org/apache/http/impl/nio/client/InternalHttpAsyncClient.class",
                "org/apache/hc/client5/http/impl/async/InternalAbstractHttpAsyncClient.class");
    }

    /** Each of {@code classes} (a class file's name) is in the jar under {@code shaded/} only. */
    private static void assertRelocatedOnly(Path fatJar, String... classes) throws Exception {
        try (ZipFile jar = new ZipFile(fatJar.toFile())) {
            for (String name : classes) {
                assertNotNull(jar.getEntry("shaded/" + name), name);
                assertNull(jar.getEntry(name), name);
            }
        }
    }

    @ParameterizedTest(name = "{0} relocated, {1}")
    @CsvSource({"apache4, ALWAYS_ZERO", "apache4, CONSTANT_OVERSTATED", "okhttp, ALWAYS_ZERO", "okhttp, CONSTANT_OVERSTATED",
        "apache5-async, ALWAYS_ZERO", "apache5-async, CONSTANT_OVERSTATED", "apache4-async, ALWAYS_ZERO", "apache4-async, CONSTANT_OVERSTATED"})
    void aRelocatedClientIsGovernedAsTheOriginalIs(String client, Behaviour behaviour) throws Exception {
        assertGoverned(fatJar(), client, behaviour);
    }

    /** Every record, the floor after a refusal, every request in the report, no client named as ungoverned. */
    private static void assertGoverned(ChildJvm jvm, String client, Behaviour behaviour, String... more) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(behaviour, 10, 2_000))) {
            ScraperRun run = ScraperRun.runAsGiven(jvm, POLICY, client, portal.baseUrl(), RECORDS, more);
            PortalStats stats = portal.stats();
            AgentReport.Host host = run.report().host("127.0.0.1:" + portal.port());
            System.out.println(client + " relocated, " + behaviour + ": " + run.fetched + " of " + RECORDS + " fetched, " + stats.requests
                    + " requests, " + stats.refusals + " refusals, shortest gap after a worker's own refusal "
                    + stats.shortestGapAfterOwnRefusalMillis + " ms");

            assertEquals(RECORDS, run.fetched, () -> "every record arrives\n" + stats + "\n" + run);
            Inconclusive.unlessRefused(stats.refusals, () -> stats + "\n" + run); // so this test could fail
            MinSleepFloor.assertKept(stats.shortestGapAfterOwnRefusalMillis, MIN_SLEEP, () -> stats + "\n" + run);
            assertEquals(stats.requests, (long) host.number("requests"),
                    () -> "the report counts every request the portal saw: " + host + "\n" + stats);
            assertFalse(run.jvm.stderr.contains("ungoverned HTTP"), () -> "a governed relocated client is not named:\n" + run.jvm.stderr);
            assertFalse(run.jvm.stderr.contains("internal failure"), run::toString);
        }
    }

    @Test
    void theFatJarHoldsJettyRelocatedOnly() throws Exception {
        assertRelocatedOnly(ShadedScraperJar.get(), "org/eclipse/jetty/client/transport/HttpRequest.class",
                "org/eclipse/jetty/client/HttpClient.class", "org/eclipse/jetty/io/Content.class");
    }

    /** Jetty HttpClient 12 relocated with everything of Jetty's (its http, io and util packages), as a fat jar has it. */
    @ParameterizedTest(name = "jetty relocated, {0}")
    @CsvSource({"ALWAYS_ZERO", "CONSTANT_OVERSTATED"})
    void aRelocatedJettyIsGovernedAsTheOriginalIs(Behaviour behaviour) throws Exception {
        aRelocatedClientIsGovernedAsTheOriginalIs("jetty", behaviour);
    }

    @Test
    void theAsyncHttpClientFatJarHoldsItAndNettyRelocatedOnly() throws Exception {
        assertRelocatedOnly(ShadedScraperJar.withAsyncHttpClient(), "org/asynchttpclient/DefaultAsyncHttpClient.class",
                "io/netty/handler/codec/http/HttpClientCodec.class");
    }

    /** AsyncHttpClient 3 and its Netty relocated (shaded.org.asynchttpclient, shaded.io.netty), three workers, on Java 17. */
    @ParameterizedTest(name = "AsyncHttpClient relocated, {0}")
    @EnumSource(value = Behaviour.class, names = {"ALWAYS_ZERO", "CONSTANT_OVERSTATED"})
    void aRelocatedAsyncHttpClientIsGovernedAsTheOriginalIs(Behaviour behaviour) throws Exception {
        assertGoverned(new ChildJvm(Jdk.JAVA_17).classpathEntry(ShadedScraperJar.withAsyncHttpClient().toString()),
                "dev.retryafter.it.apps.java8.AsyncHttpClientFetcher", behaviour, "--threads", "3");
    }

    @Test
    void theOkHttp2FatJarHoldsItAndOkioRelocatedOnly() throws Exception {
        assertRelocatedOnly(ShadedScraperJar.withOkHttp2(), "com/squareup/okhttp/Call.class", "com/squareup/okhttp/RequestBody$1.class",
                "com/squareup/okhttp/internal/huc/HttpURLConnectionImpl.class", "okio/Okio.class");
    }

    /**
     * OkHttp 2.7.5 and its okio relocated ({@code shaded.com.squareup.okhttp}, {@code shaded.okio}) on Java 8 and 17, the
     * test application's {@code OkHttp2App} (as {@code OkHttp2Test} runs it): every refusal sent again once through
     * {@code execute()}, {@code enqueue()} and {@code OkUrlFactory}'s connections, min-sleep kept, and the relocated copy's
     * own body of a string sent again whole. Without the agent, the refused records do not arrive.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_8", "JAVA_17"})
    void aRelocatedOkHttp2IsGovernedAsTheOriginalIs(Jdk jdk) throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n % 4 == 1 ? Reply.refused("0") : Reply.ok())) {
            ChildJvm.Result result = okHttp2(jdk, true, "records", server.url("/records/"), "12");
            assertEquals(0, result.exitCode, result::toString);
            assertTrue(result.stdout.contains("EXECUTE 12 of 12") && result.stdout.contains("ENQUEUE 12 of 12"),
                    () -> "every record, through execute() and enqueue()\n" + result);
            int refusals = (server.requests() + 2) / 4;
            assertTrue(refusals > 0, result::toString);
            assertEquals(24 + refusals, server.requests(), () -> "each refusal sent again once, nothing more\n" + result);
            assertTrue(result.stderr.contains("429 attempt 1/"), () -> "governed: the agent decided on it\n" + result);
            for (int n = 1; n < 12 && n + 1 < server.arrivals.size(); n += 4) { // execute() sends one at a time
                long gap = (server.arrivals.get(n + 1) - server.arrivals.get(n)) / 1_000_000;
                MinSleepFloor.assertKept(gap, OKHTTP_2_MIN_SLEEP, () -> gap + " ms after a refusal\n" + result);
            }
            assertFalse(result.stderr.contains("ungoverned") || result.stderr.contains("internal failure"), result::toString);
        }
        try (ScriptedServer server = new ScriptedServer(n -> n % 4 == 1 ? Reply.refused("0") : Reply.ok())) {
            ChildJvm.Result result = okHttp2(jdk, true, "url-records", server.url("/records/"), "12");
            assertEquals(0, result.exitCode, result::toString);
            assertTrue(result.stdout.contains("URL 12 of 12"), () -> "every record, through OkUrlFactory's connections\n" + result);
            assertFalse(result.stderr.contains("ungoverned") || result.stderr.contains("internal failure"), result::toString);
            assertEquals(12 + (server.requests() + 2) / 4, server.requests(), () -> "each refusal sent again once\n" + result);
        }
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.refused("0") : Reply.ok())) {
            ChildJvm.Result result = okHttp2(jdk, true, "post-string", server.url("/upload"));
            assertTrue(result.stdout.contains("STATUS 200 "), result::toString);
            assertEquals(2, server.bodies.size(), result::toString);
            assertEquals(server.bodies.get(0), server.bodies.get(1), () -> "the relocated copy's own body, sent again whole\n" + result);
        }
        try (ScriptedServer server = new ScriptedServer(n -> n % 4 == 1 ? Reply.refused("0") : Reply.ok())) {
            ChildJvm.Result result = okHttp2(jdk, false, "records", server.url("/records/"), "12");
            assertEquals(0, result.exitCode, result::toString);
            assertTrue(result.stdout.contains("EXECUTE 9 of 12"), () -> "without the agent, each refusal is the record's end\n" + result);
        }
    }

    private static final long OKHTTP_2_MIN_SLEEP = 200;

    private static ChildJvm.Result okHttp2(Jdk jdk, boolean agent, String... args) throws Exception {
        ChildJvm jvm = new ChildJvm(jdk).classpathEntry(ShadedScraperJar.withOkHttp2().toString());
        if (agent) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, "default.min-sleep = " + OKHTTP_2_MIN_SLEEP + "ms\ndefault.max-sleep = 2s\n");
            jvm.withAgent("config=" + policy);
        }
        return jvm.timeout(Duration.ofSeconds(150)).main("dev.retryafter.it.apps.java8.OkHttp2App", args).run();
    }

    @Test
    void withoutTheAgentTheSameJarLosesRecords() throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 10, 2_000))) {
            ScraperRun run = ScraperRun.runAsGiven(fatJar(), null, "apache4", portal.baseUrl(), RECORDS);
            PortalStats stats = portal.stats();

            assertTrue(stats.refusals > 0, () -> "the portal refused: " + stats + "\n" + run);
            assertTrue(run.fetched < RECORDS, () -> "refusals lost records: " + run.fetched + "\n" + run);
            assertTrue(!MinSleepFloor.kept(stats.shortestGapAfterOwnRefusalMillis, MIN_SLEEP),
                    () -> "unpaced: a request came sooner than min-sleep after a refusal: " + stats);
        }
    }
}
