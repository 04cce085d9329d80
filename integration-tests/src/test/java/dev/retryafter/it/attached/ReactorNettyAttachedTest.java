package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Reactor Netty's HttpClient 1.3 (on Netty) in this very JVM, which runs with the built agent attached. */
class ReactorNettyAttachedTest extends AbstractClientSuite {

    private static final HttpClient CLIENT = HttpClient.create();
    private static final Duration AT_MOST = Duration.ofSeconds(30);

    @Override
    int get(String url) {
        return CLIENT.get().uri(url)
                .responseSingle((response, body) -> body.asString().defaultIfEmpty("").thenReturn(response.status().code()))
                .block(AT_MOST);
    }

    @Override
    int getWithin(String url, long timeoutMillis) {
        return CLIENT.responseTimeout(java.time.Duration.ofMillis(timeoutMillis)).get().uri(url)
                .responseSingle((response, body) -> body.asString().defaultIfEmpty("").thenReturn(response.status().code()))
                .block(AT_MOST);
    }

    /** A unicast sink's flux, which takes one subscriber only. */
    @Override
    int postOnce(String url, String body) {
        Sinks.Many<String> once = Sinks.many().unicast().onBackpressureBuffer();
        once.tryEmitNext(body);
        once.tryEmitComplete();
        return CLIENT.headers(headers -> headers.set("Content-Length", body.length())).post().uri(url)
                .send(ByteBufFlux.fromString(once.asFlux()))
                .responseSingle((response, content) -> content.asString().defaultIfEmpty("").thenReturn(response.status().code()))
                .block(AT_MOST);
    }

    /** A string, which each send turns into a buffer of its own. */
    @Override
    int postReplayable(String url, String body) {
        return CLIENT.post().uri(url).send(ByteBufFlux.fromString(Mono.just(body)))
                .responseSingle((response, content) -> content.asString().defaultIfEmpty("").thenReturn(response.status().code()))
                .block(AT_MOST);
    }

    @Test
    void theLastRefusalReachesTheApplicationWithItsBody() throws Throwable {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(503, "0", 32))) {
            lastRefusalOrAHold(server, () -> assertEquals("503 32", CLIENT.get().uri(server.url("/records/1"))
                    .responseSingle((response, content) -> content.asString().map(text -> response.status().code() + " " + text.length()))
                    .block(AT_MOST)));
        }
    }

    /** {@code response()} and {@code responseContent()} meet in the same place: governed alike. */
    @Test
    void everyWayToReadAResponseIsGoverned() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n % 2 == 0 ? Reply.refused("0") : Reply.ok())) {
            assertEquals(200, CLIENT.get().uri(server.url("/records/1")).response().block(AT_MOST).status().code());
            assertEquals(2, server.requests());
            CLIENT.get().uri(server.url("/records/2")).responseContent().aggregate().asString().block(AT_MOST);
            assertEquals(4, server.requests());
        }
    }

    /** A subscription cancelled while its request waits for its turn after a refusal sends nothing more. */
    @Test
    void aCancelledSubscriptionWhileWaitingSendsNothingMore() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"))) {
            AtomicInteger statuses = new AtomicInteger();
            Disposable subscription = CLIENT.get().uri(server.url("/records/1")).response()
                    .subscribe(response -> statuses.incrementAndGet());
            for (int waited = 0; server.requests() < 1 && waited < 3_000; waited++) {
                Thread.sleep(10);
            }
            subscription.dispose(); // in the wait after the first refusal (min-sleep 100 ms), or else after a later one
            int sent = server.requests();
            Thread.sleep(1_500);
            assertEquals(sent, server.requests(), "no attempt after the cancel");
            assertEquals(0, statuses.get());
        }
    }
}
