package dev.retryafter.it.attached;

import dev.retryafter.it.harness.H2Portal;
import dev.retryafter.it.harness.MinSleepFloor;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/2, in this very JVM, which runs with the built agent attached, against an HTTP/2-only portal (httpcore5-h2's own
 * server, cleartext with prior knowledge): Apache HttpAsyncClient 5's H2 client and OkHttp. Every request a stream; the
 * same governance as HTTP/1.1. ({@code java.net.http} speaks HTTP/2 only over TLS or by an upgrade this portal does not
 * offer; it is not tested on HTTP/2.)
 */
class Http2AttachedTest {

    @BeforeEach
    void agent() {
        Hooks.requireAgent();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Apache HttpAsyncClient 5", "OkHttp"})
    void refusalsOverHttp2AreRetriedNoSoonerThanMinSleepAndTheRecordArrives(String client) throws Exception {
        try (H2Portal portal = new H2Portal(n -> n < 2 ? 429 : 200, "0")) {
            assertEquals(200, get(client, portal.url("/records/1")), client);
            assertEquals(Collections.nCopies(3, "HTTP/2.0"), portal.versions, "two refusals retried by the agent, each a stream of"
                    + " HTTP/2, nothing stacked beneath");
            MinSleepFloor.assertKeptBetween(portal.arrivals, AbstractClientSuite.MIN_SLEEP_MILLIS, client);
        }
    }

    /**
     * Apache's own retry strategy obeys Retry-After: 3600; beneath the agent it must not, over HTTP/2 too. (OkHttp has
     * no strategy that retries a 429, so it would pass this without the agent: it is not asked.)
     */
    @Test
    void retryAfter3600OverHttp2NeverSleepsAnHour() throws Exception {
        String client = "Apache HttpAsyncClient 5";
        try (H2Portal portal = new H2Portal(n -> 429, "3600")) {
            long start = System.nanoTime();
            try {
                assertEquals(429, get(client, portal.url("/records/1")), "the last refusal goes back to the application");
            } catch (Exception e) {
                assertTrue(AbstractClientSuite.isHostHeld(e), () -> "a refusal or a hold, nothing else: " + e);
            }
            assertTrue(System.nanoTime() - start < 10_000_000_000L, "no hour asleep on Retry-After: 3600");
            assertTrue(portal.arrivals.size() <= AbstractClientSuite.MAX_ATTEMPTS, () -> portal.arrivals.size() + " requests");
        }
    }


    private static int get(String client, String url) throws Exception {
        switch (client) {
            case "Apache HttpAsyncClient 5":
                return ApacheH2.CLIENT.execute(SimpleRequestBuilder.get(URI.create(url)).build(), null).get(30, TimeUnit.SECONDS).getCode();
            case "OkHttp": {
                OkHttpClient ok = new OkHttpClient.Builder().protocols(List.of(Protocol.H2_PRIOR_KNOWLEDGE)).build();
                try (okhttp3.Response response = ok.newCall(new Request.Builder().url(url).build()).execute()) {
                    return response.code();
                }
            }
            default:
                throw new IllegalArgumentException(client);
        }
    }

    /** The H2-only client, started once, when the first test needs it. */
    private static final class ApacheH2 {
        static final CloseableHttpAsyncClient CLIENT = HttpAsyncClients.createHttp2Default();

        static {
            CLIENT.start();
        }
    }
}
