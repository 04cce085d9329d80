package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import io.netty.handler.codec.http.HttpHeaders;
import org.asynchttpclient.AsyncHandler;
import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.Dsl;
import org.asynchttpclient.HttpResponseBodyPart;
import org.asynchttpclient.HttpResponseStatus;
import org.asynchttpclient.ListenableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** AsyncHttpClient 3 (on Netty) in this very JVM, which runs with the built agent attached; and what is its own. */
class AsyncHttpClientAttachedTest extends AbstractClientSuite {

    private static final AsyncHttpClient CLIENT = Dsl.asyncHttpClient();

    @AfterAll
    static void close() throws IOException {
        CLIENT.close();
    }

    @Override
    int get(String url) throws Exception {
        return CLIENT.prepareGet(url).execute().get(30, TimeUnit.SECONDS).getStatusCode();
    }

    @Override
    int getWithin(String url, long timeoutMillis) throws Exception {
        return CLIENT.prepareGet(url).setRequestTimeout(java.time.Duration.ofMillis(timeoutMillis)).execute()
                .get(30, TimeUnit.SECONDS).getStatusCode();
    }

    /** A stream, which the client sends once. */
    @Override
    int postOnce(String url, String body) throws Exception {
        return CLIENT.preparePost(url).setBody(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8))).execute()
                .get(30, TimeUnit.SECONDS).getStatusCode();
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        return CLIENT.preparePost(url).setBody(body).execute().get(30, TimeUnit.SECONDS).getStatusCode();
    }

    /** Records what the application's handler hears. */
    private static final class Recording implements AsyncHandler<Integer> {
        final List<String> heard = new CopyOnWriteArrayList<>();
        private int status;
        private int bytes;

        @Override
        public State onStatusReceived(HttpResponseStatus responseStatus) {
            status = responseStatus.getStatusCode();
            heard.add("status " + status);
            return State.CONTINUE;
        }

        @Override
        public State onHeadersReceived(HttpHeaders headers) {
            heard.add("headers");
            return State.CONTINUE;
        }

        @Override
        public State onBodyPartReceived(HttpResponseBodyPart bodyPart) {
            bytes += bodyPart.length();
            return State.CONTINUE;
        }

        @Override
        public void onThrowable(Throwable t) {
            heard.add("throwable " + t.getClass().getSimpleName());
        }

        @Override
        public Integer onCompleted() {
            heard.add("completed " + bytes);
            return status;
        }
    }

    @Test
    void asyncHttpClientsHandlerHearsTheFinalResponseOnly() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            Recording handler = new Recording();
            assertEquals(200, CLIENT.executeRequest(Dsl.get(server.url("/records/1")).build(), handler).get(30, TimeUnit.SECONDS));
            assertEquals(List.of("status 200", "headers", "completed 16"), handler.heard);
            assertEquals(3, server.requests());
        }
    }

    @Test
    void asyncHttpClientsLastRefusalReachesTheHandlerWithItsBody() throws Throwable {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(503, "0", 32))) {
            Recording handler = new Recording();
            lastRefusalOrAHold(server, () -> {
                assertEquals(503, CLIENT.executeRequest(Dsl.get(server.url("/records/1")).build(), handler).get(30, TimeUnit.SECONDS));
                assertEquals(List.of("status 503", "headers", "completed 32"), handler.heard);
            });
        }
    }

    /** Cancelled while it waits out a refusal's second: the future says so, and the handler hears it once. */
    @Test
    void asyncHttpClientsCancelledFutureEndsTheRequest() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("1"))) {
            Recording handler = new Recording();
            ListenableFuture<Integer> future = CLIENT.executeRequest(Dsl.get(server.url("/records/1")).build(), handler);
            server.awaitRequests(1, java.time.Duration.ofSeconds(30));
            assertTrue(future.cancel(true));
            assertTrue(future.isCancelled());
            assertThrows(CancellationException.class, () -> future.get(30, TimeUnit.SECONDS));
            assertEquals(List.of("throwable CancellationException"), handler.heard);
            assertTrue(server.requests() <= 2, () -> server.requests() + " requests");
        }
    }

    /**
     * The future's {@code toCompletableFuture()}, completed by the application ({@code orTimeout} here) while the agent
     * waits to send a refused request again: the retry does not go (it went after the wait, for nobody).
     */
    @Test
    void asyncHttpClientsCompletableFutureCompletedByTheApplicationEndsTheWait() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("1"))) {
            java.util.concurrent.CompletableFuture<org.asynchttpclient.Response> timed = CLIENT.prepareGet(server.url("/records/1"))
                    .execute().toCompletableFuture().orTimeout(300, TimeUnit.MILLISECONDS);
            java.util.concurrent.ExecutionException failed = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> timed.get(30, TimeUnit.SECONDS));
            assertTrue(failed.getCause() instanceof java.util.concurrent.TimeoutException, failed::toString);
            Thread.sleep(2_000); // past the 1 s the refusal asked for
            assertEquals(1, server.requests(), "the refused attempt only");
            assertEquals(1L, hostAttribute(server, "EndedWhileWaiting"));
        }
    }
}
