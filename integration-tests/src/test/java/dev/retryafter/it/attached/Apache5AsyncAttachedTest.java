package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Method;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.DataStreamChannel;
import org.apache.hc.core5.http.nio.entity.BasicAsyncEntityProducer;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Apache HttpAsyncClient 5 (HTTP/1.1) in this very JVM, which runs with the built agent attached; and what is its own. */
class Apache5AsyncAttachedTest extends AbstractClientSuite {

    /** The defaults: its retry strategy honours Retry-After on 429 and 503, beneath the agent unless guarded. */
    private static final CloseableHttpAsyncClient CLIENT = started(HttpAsyncClients.createDefault());

    private static CloseableHttpAsyncClient started(CloseableHttpAsyncClient client) {
        client.start();
        return client;
    }

    @AfterAll
    static void close() throws IOException {
        CLIENT.close();
    }

    @Override
    int get(String url) throws Exception {
        SimpleHttpRequest get = SimpleRequestBuilder.get(URI.create(url)).build();
        return CLIENT.execute(get, null).get(30, TimeUnit.SECONDS).getCode();
    }

    /** A producer whose body says it cannot be produced twice: {@code isRepeatable()} false. */
    @Override
    int postOnce(String url, String body) throws Exception {
        AsyncEntityProducer once = new OneShot(new BasicAsyncEntityProducer(body, ContentType.TEXT_PLAIN));
        BasicRequestProducer producer = new BasicRequestProducer(Method.POST, URI.create(url), once);
        return CLIENT.execute(producer, SimpleResponseConsumer.create(), null).get(30, TimeUnit.SECONDS).getCode();
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        SimpleHttpRequest post = SimpleRequestBuilder.post(URI.create(url)).setBody(body, ContentType.TEXT_PLAIN).build();
        return CLIENT.execute(post, null).get(30, TimeUnit.SECONDS).getCode();
    }

    /** The application's callback hears the final outcome once, not each refusal retried. */
    @Test
    void theCallbackHearsTheFinalResponseAlone() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            CompletableFuture<Integer> told = new CompletableFuture<>();
            int[] calls = new int[1];
            Future<SimpleHttpResponse> future = CLIENT.execute(SimpleRequestBuilder.get(URI.create(server.url("/records/1"))).build(),
                    new FutureCallback<SimpleHttpResponse>() {
                        @Override
                        public void completed(SimpleHttpResponse result) {
                            calls[0]++;
                            told.complete(result.getCode());
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
            assertEquals(200, future.get(30, TimeUnit.SECONDS).getCode());
            assertEquals(200, told.get(30, TimeUnit.SECONDS));
            assertEquals(1, calls[0]);
            assertEquals(3, server.requests());
        }
    }

    /** Cancelling the future while the call waits out a refusal stops it: nothing more is sent, the callback hears of it. */
    @Test
    void cancellingTheFutureAbandonsTheCall() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("1"))) {
            CompletableFuture<String> told = new CompletableFuture<>();
            Future<SimpleHttpResponse> future = CLIENT.execute(SimpleRequestBuilder.get(URI.create(server.url("/records/1"))).build(),
                    new FutureCallback<SimpleHttpResponse>() {
                        @Override
                        public void completed(SimpleHttpResponse result) {
                            told.complete("completed " + result.getCode());
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
            Future<SimpleHttpResponse> future = CLIENT.execute(SimpleRequestBuilder.get(URI.create(server.url("/records/1"))).build(), null);
            try {
                future.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof IOException, () -> "the client's own failure: " + e.getCause());
                return;
            }
            throw new AssertionError("a hang-up is no response");
        }
    }

    /** Delegates all but {@code isRepeatable}. */
    private static final class OneShot implements AsyncEntityProducer {
        private final AsyncEntityProducer body;

        OneShot(AsyncEntityProducer body) {
            this.body = body;
        }

        @Override
        public boolean isRepeatable() {
            return false;
        }

        @Override
        public void failed(Exception cause) {
            body.failed(cause);
        }

        @Override
        public long getContentLength() {
            return body.getContentLength();
        }

        @Override
        public String getContentType() {
            return body.getContentType();
        }

        @Override
        public String getContentEncoding() {
            return body.getContentEncoding();
        }

        @Override
        public boolean isChunked() {
            return body.isChunked();
        }

        @Override
        public Set<String> getTrailerNames() {
            return body.getTrailerNames();
        }

        @Override
        public int available() {
            return body.available();
        }

        @Override
        public void produce(DataStreamChannel channel) throws IOException {
            body.produce(channel);
        }

        @Override
        public void releaseResources() {
            body.releaseResources();
        }
    }
}
