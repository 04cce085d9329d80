package dev.retryafter.it.apps.java8;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.OpenOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * One Vert.x WebClient 4 or 5 request, printing {@code STATUS <status> <body length>}: {@code get URL}, {@code post-once URL}
 * (a file's stream, {@code sendStream}, which Vert.x sends once) or {@code post-replayable URL} (a buffer).
 */
public final class VertxWebClientApp {

    private VertxWebClientApp() {
    }

    public static void main(String[] args) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            WebClient client = WebClient.create(vertx);
            HttpResponse<Buffer> response;
            switch (args[0]) {
                case "get":
                    response = client.getAbs(args[1]).send().toCompletionStage().toCompletableFuture().get(2, TimeUnit.MINUTES);
                    break;
                case "post-once":
                    Path file = Files.createTempFile("body-", ".txt");
                    Files.write(file, "once".getBytes(StandardCharsets.UTF_8));
                    response = vertx.fileSystem().open(file.toString(), new OpenOptions().setRead(true))
                            .compose(stream -> client.postAbs(args[1]).putHeader("Content-Length", "4").sendStream(stream))
                            .toCompletionStage().toCompletableFuture().get(2, TimeUnit.MINUTES);
                    break;
                case "post-replayable":
                    response = client.postAbs(args[1]).sendBuffer(Buffer.buffer("every time")).toCompletionStage().toCompletableFuture()
                            .get(2, TimeUnit.MINUTES);
                    break;
                default:
                    throw new IllegalArgumentException(args[0]);
            }
            Buffer body = response.body();
            System.out.println("STATUS " + response.statusCode() + " " + (body == null ? 0 : body.length()));
            client.close();
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }
}
