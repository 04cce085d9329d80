package dev.retryafter.it.apps;

import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * After a first call that loads the client's classes ({@code args[0]}), three OkHttp calls, each to a host of its own
 * that refuses every request, each ended by the application while the agent waits out a refusal: {@code execute()} and
 * {@code enqueue()} under a call timeout of 3 s, and an {@code execute()} that another thread cancels 2 s in. Prints,
 * for each, how it ended and after how long.
 */
public final class OkHttpCancelApp {

    private OkHttpCancelApp() {
    }

    public static void main(String[] args) throws Exception {
        OkHttpClient timed = new OkHttpClient.Builder().callTimeout(3, TimeUnit.SECONDS).build();
        timed.newCall(new Request.Builder().url(args[0]).build()).execute().close();
        long start = System.nanoTime();
        String ended;
        try (Response response = timed.newCall(new Request.Builder().url(args[1]).build()).execute()) {
            ended = "status " + response.code();
        } catch (IOException e) {
            ended = e.toString();
        }
        report("EXECUTE", ended, start);

        start = System.nanoTime();
        CompletableFuture<String> answer = new CompletableFuture<>();
        timed.newCall(new Request.Builder().url(args[2]).build()).enqueue(new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
                answer.complete(e.toString());
            }

            @Override
            public void onResponse(Call call, Response response) {
                response.close();
                answer.complete("status " + response.code());
            }
        });
        report("ENQUEUE", answer.get(120, TimeUnit.SECONDS), start);

        OkHttpClient plain = timed.newBuilder().callTimeout(0, TimeUnit.SECONDS).build();
        Call call = plain.newCall(new Request.Builder().url(args[3]).build());
        start = System.nanoTime();
        AbortWhileWaitingApp.abortLater(call::cancel);
        try (Response response = call.execute()) {
            ended = "status " + response.code();
        } catch (IOException e) {
            ended = e.toString();
        }
        report("CANCEL", ended, start);
        System.exit(0);
    }

    private static void report(String what, String ended, long start) {
        System.out.println(what + " " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + ended);
    }
}
