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
import java.util.concurrent.CountDownLatch;
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

    /**
     * A call the agent holds at its enqueue (its host's first call is in flight: one at a time in its slow start) reads
     * as executed, and a second enqueue or execute of it is refused as OkHttp refuses it ("Already Executed"); it was
     * sent instead, and the first enqueue's callback was never told anything.
     */
    @Test
    void aCallHeldForItsTurnIsAlreadyExecutedAsOkHttpSays() throws Exception {
        try (Unanswered first = new Unanswered()) {
            Call held = CLIENT.newCall(new Request.Builder().url(first.server.url("/records/2")).build());
            CompletableFuture<Integer> second = enqueue(held);
            assertTrue(held.isExecuted(), "an enqueued call reads as executed");
            IllegalStateException again = assertThrows(IllegalStateException.class, () -> enqueue(held));
            assertEquals("Already Executed", again.getMessage());
            assertThrows(IllegalStateException.class, held::execute);
            assertEquals(1, first.server.requests(), "the second call waits for the first one's permit");
            assertEquals(200, first.answer());
            assertEquals(200, second.get(30, TimeUnit.SECONDS), "the first enqueue's callback hears the answer");
            assertEquals(2, first.server.requests());
        }
    }

    /**
     * A call cancelled while the agent holds it at its enqueue (its host's one permit is taken by a call the server has
     * not answered) fails at once, as OkHttp fails a cancelled call, and is never sent; it did not fail before the first
     * call's answer came, its dispatcher thread waiting for the permit.
     */
    @Test
    void aCallCancelledWhileHeldForItsTurnFailsAtOnce() throws Exception {
        try (Unanswered first = new Unanswered()) {
            Call held = CLIENT.newCall(new Request.Builder().url(first.server.url("/records/2")).build());
            CompletableFuture<Integer> second = enqueue(held);
            held.cancel();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> second.get(10, TimeUnit.SECONDS),
                    "failed while the first call was still unanswered");
            assertEquals("Canceled", failed.getCause().getMessage());
            assertEquals(200, first.answer());
            assertEquals(1, first.server.requests(), "the cancelled call was never sent");
        }
    }

    /** A host's first call, enqueued and in flight, which its server answers only when asked: it holds the host's one permit. */
    private static final class Unanswered implements AutoCloseable {
        final CountDownLatch release = new CountDownLatch(1);
        final ScriptedServer server;
        final CompletableFuture<Integer> status;

        Unanswered() throws Exception {
            server = new ScriptedServer(n -> {
                if (n == 0) {
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return Reply.ok();
            });
            status = enqueue(CLIENT.newCall(new Request.Builder().url(server.url("/records/1")).build()));
            for (int waited = 0; server.requests() < 1 && waited < 3_000; waited++) {
                Thread.sleep(10);
            }
        }

        /** Lets the server answer, and returns the status. */
        int answer() throws Exception {
            release.countDown();
            return status.get(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            release.countDown();
            server.close();
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
