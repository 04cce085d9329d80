package dev.retryafter.it.apps;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Provokes an Error inside the agent: standard error, where the agent logs its decisions, throws a
 * {@code StackOverflowError} the first time a decision is written to it. Then makes requests as an
 * application would: plain ones, one the server hangs up on, and one its own interceptor fails
 * with an {@code AssertionError}. Prints {@code STATUS <code>} or {@code ERROR <throwable>} for each.
 * Args: client, URL.
 */
public final class AgentErrorApp {

    private AgentErrorApp() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream real = System.err;
        AtomicBoolean thrown = new AtomicBoolean();
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                real.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                if (new String(bytes, offset, length).contains("Retry-After=") && thrown.compareAndSet(false, true)) {
                    throw new StackOverflowError("provoked in the agent's decision log");
                }
                real.write(bytes, offset, length);
            }
        }, true));
        String url = args[1];
        try (ApacheGet client = ApacheGet.of(args[0])) {
            request(client, url + "/refused-first", false);
            request(client, url + "/plain", false);
            request(client, url + "/hang-up", false);
            request(client, url + "/plain", false);
            request(client, url + "/own-error", true); // last: an Error makes Apache 5 shut its pool down
        }
    }

    private static void request(ApacheGet client, String url, boolean fail) {
        try (ApacheGet.Response response = client.get(url, fail)) {
            response.body().readAllBytes();
            System.out.println("STATUS " + response.status());
        } catch (Throwable t) {
            System.out.println("ERROR " + t);
        }
    }
}
