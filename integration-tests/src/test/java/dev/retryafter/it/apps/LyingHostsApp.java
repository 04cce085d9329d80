package dev.retryafter.it.apps;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scraper of many hosts on many threads, on the JDK's client: each thread asks hosts
 * {@code h0.lying.test} ... in turn (the test's hosts file sends every name to its portal on
 * loopback), each request a path of its own, until {@code seconds} have passed. Says DONE with its
 * counts. Args: port, hosts, threads, seconds.
 */
public final class LyingHostsApp {

    private LyingHostsApp() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int hosts = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        long endNanos = System.nanoTime() + Long.parseLong(args[3]) * 1_000_000_000L;
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                for (int k = 0; System.nanoTime() < endNanos; k++) {
                    int host = (thread + threads * k) % hosts;
                    URI uri = URI.create("http://h" + host + ".lying.test:" + port + "/r/" + thread + "-" + k);
                    try {
                        int status = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode();
                        (status == 200 ? ok : refused).incrementAndGet();
                    } catch (Exception e) {
                        failed.incrementAndGet();
                        System.out.println("ERROR " + e);
                    }
                }
            }, "scraper-" + t);
            worker.start();
            running.add(worker);
        }
        for (Thread worker : running) {
            worker.join();
        }
        System.out.println("DONE ok=" + ok + " refused=" + refused + " failed=" + failed);
    }
}
