package dev.retryafter.it.apps;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Sinks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One Spring WebClient request (Reactor Netty beneath), printing {@code STATUS <status> <body length>}: {@code get URL},
 * or {@code post-once URL} (a unicast sink's flux, which takes one subscriber only).
 */
public final class SpringWebClientApp {

    private SpringWebClientApp() {
    }

    public static void main(String[] args) {
        WebClient client = WebClient.create();
        WebClient.RequestHeadersSpec<?> request;
        switch (args[0]) {
            case "get":
                request = client.get().uri(args[1]);
                break;
            case "post-once":
                Sinks.Many<DataBuffer> once = Sinks.many().unicast().onBackpressureBuffer();
                once.tryEmitNext(DefaultDataBufferFactory.sharedInstance.wrap("once".getBytes(StandardCharsets.UTF_8)));
                once.tryEmitComplete();
                request = client.post().uri(args[1]).header("Content-Length", "4")
                        .body(BodyInserters.fromDataBuffers(once.asFlux()));
                break;
            default:
                throw new IllegalArgumentException(args[0]);
        }
        String line = request.exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("")
                .map(body -> "STATUS " + response.statusCode().value() + " " + body.length()))
                .block(Duration.ofMinutes(2));
        System.out.println(line);
    }
}
