package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * OkHttp 4.12 {@code execute()} in this very JVM, which runs with the built agent attached; and
 * what is its own. OkHttp 3.14 and 5.x run the same scraper in child JVMs (LyingHeadersTest and others).
 */
class OkHttpAttachedTest extends AbstractClientSuite {

    static final MediaType TEXT = MediaType.get("text/plain; charset=utf-8");
    static final OkHttpClient CLIENT = new OkHttpClient.Builder().readTimeout(10, TimeUnit.SECONDS).build();

    /** A body OkHttp itself will not send twice: it says so. */
    static RequestBody oneShot(String body) {
        return new RequestBody() {
            @Override
            public MediaType contentType() {
                return TEXT;
            }

            @Override
            public void writeTo(BufferedSink sink) throws IOException {
                sink.writeUtf8(body);
            }

            @Override
            public boolean isOneShot() {
                return true;
            }
        };
    }

    int send(OkHttpClient client, Request request) throws Exception {
        try (Response response = client.newCall(request).execute()) {
            response.body().bytes();
            return response.code();
        }
    }

    @Override
    int get(String url) throws Exception {
        return send(CLIENT, new Request.Builder().url(url).build());
    }

    @Override
    int postOnce(String url, String body) throws Exception {
        return send(CLIENT, new Request.Builder().url(url).post(oneShot(body)).build());
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        return send(CLIENT, new Request.Builder().url(url).post(RequestBody.create(body.getBytes(StandardCharsets.UTF_8), TEXT)).build());
    }

    /** The agent sits beneath the application's interceptors: they see one call, and its final response. */
    @Test
    void applicationInterceptorsSeeOneCallAndItsFinalResponse() throws Exception {
        List<Integer> seen = new CopyOnWriteArrayList<>();
        OkHttpClient client = CLIENT.newBuilder().addInterceptor(chain -> {
            Response response = chain.proceed(chain.request().newBuilder().header("X-Added-By", "application").build());
            seen.add(response.code());
            return response;
        }).build();
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            assertEquals(200, send(client, new Request.Builder().url(server.url("/records/1")).build()));
            assertEquals(List.of(200), seen);
            assertEquals(3, server.requests(), "each attempt carried what the interceptor added, through OkHttp's whole chain");
        }
    }

    /** Network interceptors sit beneath the agent: they see every attempt. */
    @Test
    void networkInterceptorsSeeEveryAttempt() throws Exception {
        List<Integer> seen = new CopyOnWriteArrayList<>();
        OkHttpClient client = CLIENT.newBuilder().addNetworkInterceptor(chain -> {
            Response response = chain.proceed(chain.request());
            seen.add(response.code());
            return response;
        }).build();
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok())) {
            assertEquals(200, send(client, new Request.Builder().url(server.url("/records/1")).build()));
            assertEquals(List.of(429, 429, 200), seen);
        }
    }

    /** OkHttp's own redirects still run inside each attempt. */
    @Test
    void redirectsAreStillFollowed() throws Exception {
        try (ScriptedServer target = new ScriptedServer(n -> n < 1 ? Reply.refused("0") : Reply.ok());
             ScriptedServer redirecting = new ScriptedServer(n -> Reply.redirect(target.url("/records/1")))) {
            assertEquals(200, get(redirecting.url("/old/1")));
            assertEquals(2, target.requests());
        }
    }
}
