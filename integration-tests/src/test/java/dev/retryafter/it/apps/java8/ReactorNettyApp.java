package dev.retryafter.it.apps.java8;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;

import java.time.Duration;

/**
 * One Reactor Netty HttpClient 1.x request, printing {@code STATUS <status> <body length>}: {@code get URL},
 * {@code post-once URL} (a unicast sink's flux, which takes one subscriber only) or {@code post-replayable URL} (a
 * string, which each send turns into a buffer of its own).
 */
public final class ReactorNettyApp {

    private ReactorNettyApp() {
    }

    public static void main(String[] args) {
        HttpClient client = HttpClient.create();
        HttpClient.ResponseReceiver<?> request;
        switch (args[0]) {
            case "get":
                request = client.get().uri(args[1]);
                break;
            case "post-once":
                Sinks.Many<String> once = Sinks.many().unicast().onBackpressureBuffer();
                once.tryEmitNext("once");
                once.tryEmitComplete();
                request = client.headers(headers -> headers.set("Content-Length", 4)).post().uri(args[1])
                        .send(ByteBufFlux.fromString(once.asFlux()));
                break;
            case "post-replayable":
                request = client.post().uri(args[1]).send(ByteBufFlux.fromString(Mono.just("every time")));
                break;
            default:
                throw new IllegalArgumentException(args[0]);
        }
        String line = request.responseSingle((response, body) -> body.asString().defaultIfEmpty("")
                .map(text -> "STATUS " + response.status().code() + " " + text.length()))
                .block(Duration.ofMinutes(2));
        System.out.println(line);
    }
}
