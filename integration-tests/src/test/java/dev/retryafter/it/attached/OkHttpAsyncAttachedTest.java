package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** OkHttp 4.12 {@code enqueue()}: the same suite through the dispatcher. */
class OkHttpAsyncAttachedTest extends OkHttpAttachedTest {

    @Override
    int send(OkHttpClient client, Request request) throws Exception {
        return enqueue(client.newCall(request)).get(30, TimeUnit.SECONDS);
    }

    /**
     * A dispatcher whose executor was shut down fails each call it is handed at once (onFailure) and never runs it: the
     * turn each call took at its enqueue goes back all the same. Were it kept, the host's first call of a slow start (one
     * in flight) would be its last: every later call to the host would wait for a permit for ever.
     */
    @Test
    void callsTheDispatchersExecutorRejectsGiveTheirTurnsBack() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.ok())) {
            ExecutorService shutDown = Executors.newSingleThreadExecutor();
            shutDown.shutdown();
            OkHttpClient rejecting = CLIENT.newBuilder().dispatcher(new Dispatcher(shutDown)).build();
            for (int i = 0; i < 10; i++) {
                CompletableFuture<Integer> rejected = enqueue(rejecting.newCall(new Request.Builder().url(server.url("/records/" + i)).build()));
                ExecutionException failed = assertThrows(ExecutionException.class, () -> rejected.get(30, TimeUnit.SECONDS));
                assertTrue(String.valueOf(failed.getCause().getMessage()).contains("executor rejected"), failed.getCause().toString());
            }
            assertEquals(200, get(server.url("/records/after")), "a call of a working client to the same host goes");
            assertEquals(1, server.requests(), "the rejected calls never reached the host");
        }
    }

    private static CompletableFuture<Integer> enqueue(Call call) {
        CompletableFuture<Integer> status = new CompletableFuture<>();
        call.enqueue(new Callback() {
            @Override
            public void onFailure(Call failed, IOException e) {
                status.completeExceptionally(e);
            }

            @Override
            public void onResponse(Call answered, Response response) throws IOException {
                try (Response r = response) {
                    if (answered != call) {
                        status.completeExceptionally(new AssertionError("the callback was handed another call"));
                        return;
                    }
                    r.body().bytes();
                    status.complete(r.code());
                }
            }
        });
        return status;
    }
}
