package dev.retryafter.it.attached;

import dev.retryafter.it.harness.MinSleepFloor;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.Message;
import org.apache.hc.core5.http.URIScheme;
import org.apache.hc.core5.http.impl.bootstrap.HttpAsyncServer;
import org.apache.hc.core5.http.message.BasicHttpResponse;
import org.apache.hc.core5.http.nio.AsyncRequestConsumer;
import org.apache.hc.core5.http.nio.AsyncServerRequestHandler;
import org.apache.hc.core5.http.nio.entity.AsyncEntityProducers;
import org.apache.hc.core5.http.nio.entity.StringAsyncEntityConsumer;
import org.apache.hc.core5.http.nio.support.BasicRequestConsumer;
import org.apache.hc.core5.http.nio.support.BasicResponseProducer;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.http2.impl.nio.bootstrap.H2ServerBootstrap;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.reactor.ListenerEndpoint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Apache HttpAsyncClient 5 over HTTP/2 (its H2-only client, cleartext with prior knowledge) in this very JVM, which
 * runs with the built agent attached, against an H2 portal of httpcore5-h2's own: the same {@code doExecute} as
 * HTTP/1.1, so the same governance, with every request a stream on one connection.
 */
class Apache5AsyncH2AttachedTest {

    private static final CloseableHttpAsyncClient CLIENT = started(HttpAsyncClients.createHttp2Default());

    private static CloseableHttpAsyncClient started(CloseableHttpAsyncClient client) {
        client.start();
        return client;
    }

    @BeforeEach
    void agent() {
        Hooks.requireAgent();
    }

    @AfterAll
    static void close() throws IOException {
        CLIENT.close();
    }

    private static int get(String url) throws Exception {
        SimpleHttpResponse response = CLIENT.execute(SimpleRequestBuilder.get(URI.create(url)).build(), null).get(30, TimeUnit.SECONDS);
        return response.getCode();
    }

    @Test
    void refusalsOverHttp2AreRetriedNoSoonerThanMinSleepAndTheRecordArrives() throws Exception {
        try (H2Portal portal = new H2Portal(n -> n < 2 ? 429 : 200, "0")) {
            assertEquals(200, get(portal.url("/records/1")));
            assertEquals(3, portal.arrivals.size(), "two refusals retried by the agent, nothing stacked beneath");
            assertEquals(List.of("HTTP/2.0", "HTTP/2.0", "HTTP/2.0"), portal.versions, "every request a stream of HTTP/2");
            for (int i = 1; i < portal.arrivals.size(); i++) {
                long gap = (portal.arrivals.get(i) - portal.arrivals.get(i - 1)) / 1_000_000;
                int request = i;
                MinSleepFloor.assertKept(gap, AbstractClientSuite.MIN_SLEEP_MILLIS, () -> "request " + request + " came " + gap
                        + " ms after a refusal");
            }
        }
    }

    /** The client's own retry strategy (which obeys Retry-After: 3600) stays beneath the agent over HTTP/2 too. */
    @Test
    void retryAfter3600OverHttp2NeverSleepsAnHour() throws Exception {
        try (H2Portal portal = new H2Portal(n -> 429, "3600")) {
            long start = System.nanoTime();
            try {
                assertEquals(429, get(portal.url("/records/1")), "the last refusal goes back to the application");
            } catch (Exception e) {
                assertTrue(String.valueOf(e).contains("HostHeldException") || String.valueOf(e.getCause()).contains("HostHeldException"),
                        () -> "a refusal or a hold, nothing else: " + e);
            }
            assertTrue(System.nanoTime() - start < 10_000_000_000L, "no hour asleep on Retry-After: 3600");
            assertTrue(portal.arrivals.size() <= AbstractClientSuite.MAX_ATTEMPTS, () -> portal.arrivals.size() + " requests");
        }
    }

    /** An HTTP/2-only loopback portal (httpcore5-h2's server) answering the n-th request with the status its script gives. */
    private static final class H2Portal implements AutoCloseable {

        final List<Long> arrivals = new CopyOnWriteArrayList<>();
        final List<String> versions = new CopyOnWriteArrayList<>();
        private final HttpAsyncServer server;
        private final int port;

        H2Portal(IntUnaryOperator statusOfNth, String retryAfter) throws Exception {
            AtomicInteger requests = new AtomicInteger();
            server = H2ServerBootstrap.bootstrap().setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_2).setCanonicalHostName("127.0.0.1")
                    .register("*", new AsyncServerRequestHandler<Message<HttpRequest, String>>() {
                        @Override
                        public AsyncRequestConsumer<Message<HttpRequest, String>> prepare(HttpRequest request, EntityDetails entity,
                                HttpContext context) {
                            return new BasicRequestConsumer<>(entity == null ? null : new StringAsyncEntityConsumer());
                        }

                        @Override
                        public void handle(Message<HttpRequest, String> message, ResponseTrigger trigger, HttpContext context)
                                throws org.apache.hc.core5.http.HttpException, IOException {
                            arrivals.add(System.nanoTime());
                            versions.add(String.valueOf(context.getProtocolVersion()));
                            int status = statusOfNth.applyAsInt(requests.getAndIncrement());
                            BasicHttpResponse response = new BasicHttpResponse(status);
                            if (status == 429) {
                                response.addHeader("Retry-After", retryAfter);
                            }
                            trigger.submitResponse(new BasicResponseProducer(response,
                                    AsyncEntityProducers.create(status == 429 ? "slow down" : "{\"id\":1}", ContentType.TEXT_PLAIN)), context);
                        }
                    }).create();
            server.start();
            ListenerEndpoint endpoint = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), URIScheme.HTTP)
                    .get(10, TimeUnit.SECONDS);
            port = ((InetSocketAddress) endpoint.getAddress()).getPort();
        }

        String url(String path) {
            return "http://127.0.0.1:" + port + path;
        }

        @Override
        public void close() {
            server.close(CloseMode.IMMEDIATE);
        }
    }
}
