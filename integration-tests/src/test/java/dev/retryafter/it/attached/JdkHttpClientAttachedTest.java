package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** java.net.http's {@code send} in this very JVM, which runs with the built agent attached; and what is its own. */
class JdkHttpClientAttachedTest extends AbstractClientSuite {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    @Override
    int get(String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).build(), BodyHandlers.ofString()).statusCode();
    }

    @Override
    int getWithin(String url, long timeoutMillis) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(java.time.Duration.ofMillis(timeoutMillis)).build();
        return client.send(request, BodyHandlers.ofString()).statusCode();
    }

    @Override
    int postOnce(String url, String body) throws Exception {
        HttpRequest post = HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8))))
                .build();
        return client.send(post, BodyHandlers.ofString()).statusCode();
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        HttpRequest post = HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return client.send(post, BodyHandlers.ofString()).statusCode();
    }

    private static HttpRequest get(ScriptedServer server) {
        return HttpRequest.newBuilder(URI.create(server.url("/records/1?apikey=s3cr3t"))).timeout(TIMEOUT).build();
    }

    /** A handler that notes every status it is asked to read a body for. */
    private static <T> BodyHandler<T> noting(List<Integer> seen, BodyHandler<T> handler) {
        return info -> {
            seen.add(info.statusCode());
            return handler.apply(info);
        };
    }

    @Test
    void aRefusalThatWillBeRetriedNeverReachesTheApplicationsHandler() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? new Reply(429, "0", 1 << 20) : Reply.ok())) {
            List<Integer> seen = new CopyOnWriteArrayList<>();
            HttpResponse<InputStream> response = client.send(get(server), noting(seen, BodyHandlers.ofInputStream()));
            try (InputStream body = response.body()) {
                body.readAllBytes();
            }
            assertEquals(200, response.statusCode());
            assertEquals(List.of(200), seen, "two one-megabyte 429 bodies were drained by the agent, not handed over");
            assertEquals(3, server.requests());
        }
    }

    @Test
    void sendAsyncRetriesOnTheFuture() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            List<Integer> seen = new CopyOnWriteArrayList<>();
            HttpResponse<String> response = client.sendAsync(get(server), noting(seen, BodyHandlers.ofString()))
                    .get(10, TimeUnit.SECONDS);
            assertEquals(200, response.statusCode());
            assertEquals(List.of(200), seen);
            assertEquals(3, server.requests());
        }
    }

    @Test
    void cancellingTheReturnedFutureStopsTheRetries() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("1"))) {
            CompletableFuture<HttpResponse<String>> future = client.sendAsync(get(server), BodyHandlers.ofString());
            server.awaitRequests(1, TIMEOUT); // refused: the retry waits its sanitised second
            assertTrue(future.cancel(true));
            Thread.sleep(2_000);
            assertEquals(1, server.requests(), "no retry after the cancel");
        }
    }

    @Test
    void aFutureTheApplicationTimesOutStopsTheRetriesToo() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("1"))) {
            CompletableFuture<HttpResponse<String>> future = client.sendAsync(get(server), BodyHandlers.ofString());
            server.awaitRequests(1, TIMEOUT); // refused: the retry waits its sanitised second
            future.orTimeout(100, TimeUnit.MILLISECONDS);
            ExecutionException failed = assertThrows(ExecutionException.class, () -> future.get(5, TimeUnit.SECONDS));
            assertTrue(failed.getCause() instanceof TimeoutException, () -> "the application's own timeout: " + failed.getCause());
            Thread.sleep(2_000);
            assertEquals(1, server.requests(), "no retry after the application's own timeout");
        }
    }

    /** As the JDK's own send does when interrupted: InterruptedException, the flag cleared. */
    @Test
    void anInterruptEndsTheWaitAndSendThrowsAsTheJdkDoes() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("1"))) {
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            CompletableFuture<Boolean> flagAfterwards = new CompletableFuture<>();
            Thread sender = new Thread(() -> {
                try {
                    client.send(get(server), BodyHandlers.ofString());
                    thrown.complete(null);
                } catch (Exception e) {
                    thrown.complete(e);
                }
                flagAfterwards.complete(Thread.currentThread().isInterrupted());
            });
            sender.start();
            server.awaitRequests(1, TIMEOUT); // refused: the retry waits its sanitised second
            sender.interrupt();
            assertTrue(thrown.get(5, TimeUnit.SECONDS) instanceof InterruptedException, () -> "thrown: " + thrown.join());
            assertEquals(false, flagAfterwards.get(5, TimeUnit.SECONDS));
            sender.join(5_000);
            assertEquals(1, server.requests(), "not retried after the interrupt");
        }
    }

    /** The JDK refuses a null handler before sending anything; with the agent, still nothing is sent. */
    @Test
    void aNullHandlerIsTheJdksToRefuseAndNothingIsSent() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.ok())) {
            HttpRequest post = HttpRequest.newBuilder(URI.create(server.url("/upload"))).timeout(TIMEOUT)
                    .POST(HttpRequest.BodyPublishers.ofString("not twice, not once")).build();
            assertThrows(NullPointerException.class, () -> client.send(post, null));
            assertThrows(NullPointerException.class, () -> client.sendAsync(post, null));
            Thread.sleep(300); // anything sent would have arrived by now
            assertEquals(0, server.requests());
        }
    }

    @Test
    void theLastRefusalComesBackWithItsHeadersAndBody() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(503, "0", 32))) {
            HttpResponse<String> response = client.send(get(server), BodyHandlers.ofString());
            assertEquals(503, response.statusCode());
            assertEquals("0", response.headers().firstValue("Retry-After").orElseThrow());
            assertEquals(32, response.body().length(), "its body intact");
            assertEquals(3, server.requests(), "max-attempts is 3");
        }
    }
}
