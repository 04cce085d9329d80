package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.InputStreamRequestContent;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.StringRequestContent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Jetty 12's HttpClient, blocking {@code send()}, in this very JVM, which runs with the built agent
 * attached; and its listener-based {@code send(listener)}, whose listeners hear the final exchange only.
 */
class JettyAttachedTest extends AbstractClientSuite {

    private static final HttpClient CLIENT = new HttpClient();

    @BeforeAll
    static void start() throws Exception {
        // No logback configuration in this module: Jetty's DEBUG lines would drown the report.
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("org.eclipse.jetty")).setLevel(ch.qos.logback.classic.Level.INFO);
        CLIENT.start();
    }

    @AfterAll
    static void stop() throws Exception {
        CLIENT.stop();
    }

    @Override
    int get(String url) throws Exception {
        return CLIENT.newRequest(url).timeout(10, TimeUnit.SECONDS).send().getStatus();
    }

    @Override
    int getWithin(String url, long timeoutMillis) throws Exception {
        return CLIENT.newRequest(url).timeout(timeoutMillis, TimeUnit.MILLISECONDS).send().getStatus();
    }

    @Override
    int postOnce(String url, String body) throws Exception {
        return CLIENT.POST(url).timeout(10, TimeUnit.SECONDS)
                .body(new InputStreamRequestContent(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8))))
                .send().getStatus();
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        return CLIENT.POST(url).timeout(10, TimeUnit.SECONDS).body(new StringRequestContent(body)).send().getStatus();
    }

    /**
     * The agent keeps nothing of a request once it is over: a governed request, answered, refused and retried, or
     * redirected, can be collected (each stayed in the agent's map of governed requests for good, about 2 KB a request).
     */
    @Test
    void aRequestOverIsNotKeptByTheAgent() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n == 1 ? Reply.refused("0") : n == 3 ? Reply.redirect("/records/9") : Reply.ok())) {
            List<WeakReference<Request>> sent = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Request request = CLIENT.newRequest(server.url("/records/" + i)).timeout(10, TimeUnit.SECONDS);
                assertEquals(200, request.send().getStatus());
                sent.add(new WeakReference<>(request));
            }
            assertEquals(5, server.requests(), "one answered, one refused and retried, one redirected");
            for (int i = 0; i < 50 && sent.stream().anyMatch(r -> r.get() != null); i++) {
                System.gc();
                Thread.sleep(20);
            }
            assertTrue(sent.stream().allMatch(r -> r.get() == null), "every request collected once over");
        }
    }

    /**
     * A request the application aborts while the agent waits to retry it fails with the application's cause, and the
     * retry the agent had planned does not go after it (a POST sent twice, an answer nobody reads). The engine counts the
     * refusal once (it counted it again as the conversation failed with it, and logged a decision on it).
     */
    @Test
    void aRequestAbortedWhileItWaitsToBeRetriedIsNotSentAgain() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 1 ? Reply.refused("1") : Reply.ok())) {
            Request request = CLIENT.newRequest(server.url("/records/1")).timeout(10, TimeUnit.SECONDS);
            CompletableFuture<Result> done = new CompletableFuture<>();
            request.send(done::complete);
            while (server.requests() < 1) {
                Thread.sleep(10);
            }
            Thread.sleep(200); // the refusal in, the agent waiting its 1 s to retry
            Exception givenUp = new Exception("the application gives up");
            request.abort(givenUp);
            Result result = done.get(20, TimeUnit.SECONDS);
            assertTrue(result.isFailed(), result::toString);
            assertEquals(givenUp, result.getFailure(), result::toString);
            Thread.sleep(2_000); // past the wait the refusal asked for, and then some
            assertEquals(1, server.requests(), "the refused attempt only");
            assertEquals(1L, hostAttribute(server, "Refusals"), "the refusal counted once");
        }
    }

    @Test
    void jettyListenersHearTheFinalExchangeOnly() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            List<Integer> begun = new CopyOnWriteArrayList<>();
            List<Integer> headed = new CopyOnWriteArrayList<>();
            CompletableFuture<Result> done = new CompletableFuture<>();
            CompletableFuture<String> body = new CompletableFuture<>();
            CLIENT.newRequest(server.url("/records/1")).timeout(10, TimeUnit.SECONDS)
                    .onResponseBegin(response -> begun.add(response.getStatus()))
                    .onResponseHeaders(response -> headed.add(response.getStatus()))
                    .send(new BufferingResponseListener() {
                        @Override
                        public void onComplete(Result result) {
                            body.complete(getContentAsString());
                            done.complete(result);
                        }
                    });
            Result result = done.get(20, TimeUnit.SECONDS);
            assertEquals(200, result.getResponse().getStatus());
            assertEquals(List.of(200), begun);
            assertEquals(List.of(200), headed);
            assertEquals(3, server.requests());
        }
    }

    @Test
    void jettyTheLastRefusalReachesTheListenersWithItsBody() throws Throwable {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(503, "0", 32))) {
            lastRefusalOrAHold(server, () -> {
                List<Integer> begun = new CopyOnWriteArrayList<>();
                CompletableFuture<Result> done = new CompletableFuture<>();
                CompletableFuture<Integer> length = new CompletableFuture<>();
                CLIENT.newRequest(server.url("/records/1")).timeout(10, TimeUnit.SECONDS)
                        .onResponseBegin(response -> begun.add(response.getStatus()))
                        .send(new BufferingResponseListener() {
                            @Override
                            public void onComplete(Result result) {
                                length.complete(getContent().length);
                                done.complete(result);
                            }
                        });
                Result result = done.get(20, TimeUnit.SECONDS);
                if (result.getFailure() != null) {
                    throw result.getFailure(); // a hold, on a machine slow enough for the attempts to outlast max-sleep
                }
                assertEquals(503, result.getResponse().getStatus());
                assertEquals(List.of(503), begun);
                assertEquals(32, length.get());
            });
        }
    }
}
