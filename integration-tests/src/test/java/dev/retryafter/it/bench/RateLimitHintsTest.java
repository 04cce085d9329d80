package dev.retryafter.it.bench;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rate-limit hints read in a real JVM, through each client's adapter: the unchanged demo scraper, the
 * agent attached with no policy file, against a loopback portal of 20 requests per 2 s fixed window
 * that refuses with a bare 429 (no {@code Retry-After}) and tells, on every response, what is left and
 * when the window resets. Truthful hints ({@code X-RateLimit-*} with an epoch reset on every blocking client; the IETF
 * {@code RateLimit} and {@code RateLimit-Policy} fields, {@code X-Rate-Limit-*} with a reset in seconds, and the older
 * draft's {@code RateLimit-Limit/-Remaining/-Reset} on one each) are paced by: every record arrives and
 * the portal refuses nothing at all. Lying hints (100 left, reset 0, on 429s) are distrusted, and the
 * agent falls back to what it learns without them: every record still arrives.
 */
class RateLimitHintsTest {

    private static final int RECORDS = 60;
    private static final int THREADS = 3;

    /** The benchmark's portal whose name starts so; its factory is private to {@link LimiterShape}. */
    private static LimiterShape shape(String prefix) {
        return LimiterShape.all(2_000).stream().filter(shape -> shape.name().startsWith(prefix)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no limiter shape named " + prefix + "..."));
    }

    static Stream<Arguments> truthful() {
        LimiterShape xRateLimit = shape("fixed 20 / 2 s, no Retry-After, X-RateLimit-*");
        LimiterShape ietf = shape("fixed 20 / 2 s, no Retry-After, IETF RateLimit");
        return Stream.of(
                Arguments.of("jdk", xRateLimit),
                Arguments.of("apache5", xRateLimit),
                Arguments.of("apache4", xRateLimit),
                Arguments.of("okhttp", xRateLimit),
                Arguments.of("urlconnection", xRateLimit),
                Arguments.of("okhttp", ietf),
                Arguments.of("apache5", LimiterShape.truthfullyHinted("fixed 20 / 2 s, no Retry-After, X-Rate-Limit-* (reset: seconds)",
                        LimiterShape.Hints.X_RATE_LIMIT_DELTA)),
                Arguments.of("jdk", LimiterShape.truthfullyHinted("fixed 20 / 2 s, no Retry-After, RateLimit-Limit/-Remaining/-Reset",
                        LimiterShape.Hints.IETF_OLD_DRAFT)));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("truthful")
    void truthfulHintsArePacedBySoThePortalRefusesNothing(String client, LimiterShape shape) throws Exception {
        try (LimiterPortal portal = new LimiterPortal(shape)) {
            ScraperRun run = scrape(client, portal);
            String figures = figures(client, shape, portal, run);
            System.out.println(figures);

            assertEquals(RECORDS, run.fetched, () -> "every record arrives: " + figures + "\n" + run);
            assertTrue(run.jvm.stderr.contains(host(portal) + " pacing by its rate-limit hints ("),
                    () -> "the agent says it paces by the host's hints: " + figures + "\n" + run);
            assertEquals(0, portal.refusals(), () -> "the portal refuses nothing: " + figures + "\n" + run);
        }
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("lying")
    void lyingHintsAreDistrustedAndEveryRecordStillArrives(String client, LimiterShape shape) throws Exception {
        try (LimiterPortal portal = new LimiterPortal(shape)) {
            ScraperRun run = scrape(client, portal);
            String figures = figures(client, shape, portal, run);
            System.out.println(figures);

            assertEquals(RECORDS, run.fetched, () -> "every record arrives: " + figures + "\n" + run);
            Inconclusive.unlessRefused(portal.refusals(), () -> figures + "\n" + run); // a lie the portal never told tests nothing
            assertTrue(run.jvm.stderr.contains(host(portal) + " rate-limit hints distrusted: "),
                    () -> "the agent says it distrusts the host's hints: " + figures + "\n" + run);
        }
    }

    static Stream<Arguments> lying() {
        return Stream.of(Arguments.of("jdk", shape("fixed 20 / 2 s, Retry-After: 0, X-RateLimit-* lying")));
    }

    /** The scraper, unchanged, with the agent and no policy file: nothing configured, only what the portal says. */
    private static ScraperRun scrape(String client, LimiterPortal portal) throws Exception {
        ChildJvm jvm = new ChildJvm(Jdk.JAVA_17).withAgent(null);
        return ScraperRun.run(jvm, null, client, portal.baseUrl(), RECORDS, "--threads", Integer.toString(THREADS));
    }

    /** How the agent names the portal in its log: host:port. */
    private static String host(LimiterPortal portal) {
        String base = portal.baseUrl().substring("http://".length());
        return base.substring(0, base.indexOf('/'));
    }

    private static String figures(String client, LimiterShape shape, LimiterPortal portal, ScraperRun run) {
        String hintLines = run.jvm.agentLines().stream().filter(line -> line.contains("rate-limit hints"))
                .collect(Collectors.joining("\n  ", "\n  ", ""));
        return String.format(Locale.ROOT, "%s, %s: %d of %d records in %d ms on %d workers; the portal saw %d requests, refused %d;"
                        + " the agent's hint lines:%s", client, shape, run.fetched, RECORDS, run.elapsedMillis, THREADS,
                portal.requests(), portal.refusals(), hintLines);
    }
}
