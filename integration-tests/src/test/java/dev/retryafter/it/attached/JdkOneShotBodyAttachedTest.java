package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A body the agent cannot prove it can send twice is sent once: the refusal goes back to the
 * application, and the server never sees a second POST with a different body (issue 9, item 6).
 */
class JdkOneShotBodyAttachedTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String BODY = "thirteen char";
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    @BeforeAll
    static void theAgentIsAttached() {
        Hooks.requireAgent();
    }

    /** {@code ofByteArrays} over an Iterable that hands out one iterator: spent after the first POST. */
    private static BodyPublisher oneShotByteArrays() {
        Iterator<byte[]> once = List.of(BODY.getBytes(StandardCharsets.UTF_8)).iterator();
        return BodyPublishers.ofByteArrays(() -> once);
    }

    private static HttpRequest post(ScriptedServer server, BodyPublisher body) {
        return HttpRequest.newBuilder(URI.create(server.url("/upload"))).timeout(TIMEOUT).POST(body).build();
    }

    @Test
    void aOneShotIterableOfByteArraysIsNotSentAgainEmpty() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.refused("0") : Reply.ok())) {
            HttpResponse<String> response = client.send(post(server, oneShotByteArrays()), BodyHandlers.ofString());
            assertEquals(429, response.statusCode(), "the refusal goes back to the application");
            assertEquals(List.of(BODY), server.bodies, "one POST, with the whole body");
        }
    }

    @Test
    void aOneShotIterableOfByteArraysIsNotSentAgainEmptyBySendAsync() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.refused("0") : Reply.ok())) {
            HttpResponse<String> response = client.sendAsync(post(server, oneShotByteArrays()), BodyHandlers.ofString())
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(429, response.statusCode(), "the refusal goes back to the application");
            assertEquals(List.of(BODY), server.bodies, "one POST, with the whole body");
        }
    }

    /** The application's own publisher: whatever it does on a second subscription, the agent does not try it. */
    @Test
    void aPublisherTheAgentDoesNotKnowIsSentOnce() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.refused("0") : Reply.ok())) {
            BodyPublisher known = BodyPublishers.ofString(BODY);
            BodyPublisher own = new BodyPublisher() {
                @Override
                public long contentLength() {
                    return known.contentLength();
                }

                @Override
                public void subscribe(java.util.concurrent.Flow.Subscriber<? super java.nio.ByteBuffer> subscriber) {
                    known.subscribe(subscriber);
                }
            };
            HttpResponse<String> response = client.send(post(server, own), BodyHandlers.ofString());
            assertEquals(429, response.statusCode());
            assertEquals(List.of(BODY), server.bodies);
        }
    }
}
