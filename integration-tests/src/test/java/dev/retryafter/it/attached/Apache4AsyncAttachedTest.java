package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import org.apache.http.HttpResponse;
import org.apache.http.client.methods.HttpGet;
import org.apache.http.client.methods.HttpPost;
import org.apache.http.concurrent.FutureCallback;
import org.apache.http.entity.ContentType;
import org.apache.http.entity.InputStreamEntity;
import org.apache.http.entity.StringEntity;
import org.apache.http.impl.nio.client.CloseableHttpAsyncClient;
import org.apache.http.impl.nio.client.HttpAsyncClients;
import org.apache.http.nio.client.methods.HttpAsyncMethods;
import org.apache.http.nio.protocol.BasicAsyncResponseConsumer;
import org.apache.http.util.EntityUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Apache HttpAsyncClient 4.1 in this very JVM, which runs with the built agent attached; and what is its own. */
class Apache4AsyncAttachedTest extends AbstractClientSuite {

    private static final CloseableHttpAsyncClient CLIENT = started(HttpAsyncClients.createDefault());
    /** The minimal client: no redirects, no authentication, another class of its own. */
    private static final CloseableHttpAsyncClient MINIMAL = started(HttpAsyncClients.createMinimal());

    private static CloseableHttpAsyncClient started(CloseableHttpAsyncClient client) {
        client.start();
        return client;
    }

    @AfterAll
    static void close() throws IOException {
        CLIENT.close();
        MINIMAL.close();
    }

    private static int statusReadingTheBody(Future<HttpResponse> future) throws Exception {
        HttpResponse response = future.get(30, TimeUnit.SECONDS);
        if (response.getEntity() != null) {
            EntityUtils.consume(response.getEntity());
        }
        return response.getStatusLine().getStatusCode();
    }

    @Override
    int get(String url) throws Exception {
        return statusReadingTheBody(CLIENT.execute(new HttpGet(url), null));
    }

    /** An {@code InputStreamEntity}: not repeatable, so neither is its producer. */
    @Override
    int postOnce(String url, String body) throws Exception {
        HttpPost post = new HttpPost(url);
        post.setEntity(new InputStreamEntity(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)), ContentType.TEXT_PLAIN));
        return statusReadingTheBody(CLIENT.execute(post, null));
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        HttpPost post = new HttpPost(url);
        post.setEntity(new StringEntity(body, ContentType.TEXT_PLAIN));
        return statusReadingTheBody(CLIENT.execute(post, null));
    }

    @Test
    void theMinimalClientIsGovernedToo() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            assertEquals(200, statusReadingTheBody(MINIMAL.execute(new HttpGet(server.url("/records/1")), null)));
            assertEquals(3, server.requests());
        }
    }

    /** The application's own producer and consumer: the consumer sees the final response alone, and is closed once. */
    @Test
    void theApplicationsConsumerSeesTheFinalResponseAlone() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            List<Integer> received = new CopyOnWriteArrayList<>();
            AtomicInteger released = new AtomicInteger();
            BasicAsyncResponseConsumer consumer = new BasicAsyncResponseConsumer() {
                @Override
                protected void onResponseReceived(HttpResponse response) throws IOException {
                    received.add(response.getStatusLine().getStatusCode());
                    super.onResponseReceived(response);
                }

                @Override
                protected void releaseResources() {
                    released.incrementAndGet();
                    super.releaseResources();
                }
            };
            HttpResponse response = CLIENT.execute(HttpAsyncMethods.createGet(server.url("/records/1")), consumer, null)
                    .get(30, TimeUnit.SECONDS);
            assertEquals(200, response.getStatusLine().getStatusCode());
            assertEquals(List.of(200), received);
            assertEquals(1, released.get(), "released once, at the end");
            assertEquals(3, server.requests());
        }
    }

    /** The application's callback hears the final outcome once, not each refusal retried. */
    @Test
    void theCallbackHearsTheFinalResponseAlone() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            CompletableFuture<Integer> told = new CompletableFuture<>();
            AtomicInteger calls = new AtomicInteger();
            Future<HttpResponse> future = CLIENT.execute(new HttpGet(server.url("/records/1")), new FutureCallback<HttpResponse>() {
                @Override
                public void completed(HttpResponse result) {
                    calls.incrementAndGet();
                    told.complete(result.getStatusLine().getStatusCode());
                }

                @Override
                public void failed(Exception ex) {
                    told.completeExceptionally(ex);
                }

                @Override
                public void cancelled() {
                    told.completeExceptionally(new AssertionError("cancelled"));
                }
            });
            assertEquals(200, statusReadingTheBody(future));
            assertEquals(200, told.get(30, TimeUnit.SECONDS));
            assertEquals(1, calls.get());
            assertEquals(3, server.requests());
        }
    }

    /** Cancelling the future while the call waits out a refusal stops it: nothing more is sent, the callback hears of it. */
    @Test
    void cancellingTheFutureAbandonsTheCall() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("1"))) {
            CompletableFuture<String> told = new CompletableFuture<>();
            Future<HttpResponse> future = CLIENT.execute(new HttpGet(server.url("/records/1")), new FutureCallback<HttpResponse>() {
                @Override
                public void completed(HttpResponse result) {
                    told.complete("completed " + result.getStatusLine().getStatusCode());
                }

                @Override
                public void failed(Exception ex) {
                    told.complete("failed " + ex);
                }

                @Override
                public void cancelled() {
                    told.complete("cancelled");
                }
            });
            server.awaitRequests(1, Duration.ofSeconds(10)); // refused: the retry waits its sanitised second
            assertTrue(future.cancel(true));
            assertEquals("cancelled", told.get(10, TimeUnit.SECONDS));
            assertTrue(future.isCancelled());
            Thread.sleep(1_500); // past the wait: a retry not stopped would have gone by now
            assertEquals(1, server.requests(), "not retried after the cancel");
        }
    }

    /** An exchange that fails (the connection dropped, each time) fails the future with the client's own cause. */
    @Test
    void aFailedExchangeFailsTheFutureWithTheClientsCause() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.hangUp())) {
            Future<HttpResponse> future = CLIENT.execute(new HttpGet(server.url("/records/1")), null);
            try {
                future.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof IOException, () -> "the client's own failure: " + e.getCause());
                return;
            }
            throw new AssertionError("a hang-up is no response");
        }
    }

    /** A refusal whose body is longer than the discard's bound: the exchange is given up on, and the retry still goes. */
    @Test
    void aLongRefusedBodyIsGivenUpOnAndTheRetryGoes() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? new Reply(429, "0", 256 * 1024) : Reply.ok())) {
            assertEquals(200, get(server.url("/records/1")));
            assertEquals(2, server.requests());
        }
    }
}
