package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.OpenOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Vert.x WebClient 5 (on Netty) in this very JVM, which runs with the built agent attached. */
class VertxWebClientAttachedTest extends AbstractClientSuite {

    private static final Vertx VERTX = Vertx.vertx();
    private static final WebClient CLIENT = WebClient.create(VERTX);

    @AfterAll
    static void close() throws Exception {
        CLIENT.close();
        VERTX.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Override
    int get(String url) throws Exception {
        return CLIENT.getAbs(url).send().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).statusCode();
    }

    @Override
    int getWithin(String url, long timeoutMillis) throws Exception {
        return CLIENT.getAbs(url).timeout(timeoutMillis).send().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).statusCode();
    }

    /** A file's stream ({@code sendStream}), which Vert.x sends once. */
    @Override
    int postOnce(String url, String body) throws Exception {
        Path file = Files.createTempFile("body-", ".txt");
        Files.writeString(file, body);
        try {
            return VERTX.fileSystem().open(file.toString(), new OpenOptions().setRead(true))
                    .compose(stream -> CLIENT.postAbs(url).putHeader("Content-Length", Integer.toString(body.length())).sendStream(stream))
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).statusCode();
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        return CLIENT.postAbs(url).sendBuffer(Buffer.buffer(body)).toCompletionStage().toCompletableFuture()
                .get(30, TimeUnit.SECONDS).statusCode();
    }

    @Test
    void vertxsLastRefusalReachesTheApplicationWithItsBody() throws Throwable {
        try (ScriptedServer server = new ScriptedServer(n -> new Reply(503, "0", 32))) {
            lastRefusalOrAHold(server, () -> {
                HttpResponse<Buffer> response = CLIENT.getAbs(server.url("/records/1")).send().toCompletionStage()
                        .toCompletableFuture().get(30, TimeUnit.SECONDS);
                assertEquals(503, response.statusCode());
                assertEquals(32, response.body().length());
            });
        }
    }
}
