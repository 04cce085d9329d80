package dev.retryafter.demo.scraper;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A scraper as old scrapers are: it fetches records one GET at a time from a portal, with a chosen
 * HTTP client and some threads, and has no retry logic of its own. A refusal is a lost record.
 * <pre>
 * java dev.retryafter.demo.scraper.LegacyScraper --url http://127.0.0.1:8081 --records 100 \
 *      [--client jdk|jdk-async|apache5|apache5-default|apache5-async|apache4|apache4-literal|apache4-legacy|apache4-async
 *                |urlconnection|okhttp|okhttp-async|jetty|commons3|asynchttpclient|vertx|spring-webclient|CLASS]
 *      [--threads 2] [--pool 8]
 *      [--timeout 30] [--api-key KEY]
 * </pre>
 * A {@code CLASS} is a public {@link Fetcher} with a public constructor taking the timeout, for
 * libraries built on these clients (jsoup, Spring's RestTemplate) that the tests bring.
 * Ends with one line the demo and the tests read: see {@link ScraperResult}.
 */
public final class LegacyScraper {

    /** The header a request names its worker in, for the portal's per-worker counts. */
    public static final String WORKER_HEADER = "X-Scraper-Worker";

    private LegacyScraper() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        String client = options.getOrDefault("client", "jdk");
        String url = required(options, "url");
        int records = Integer.parseInt(options.getOrDefault("records", "100"));
        int threads = Integer.parseInt(options.getOrDefault("threads", "1"));
        int pool = Integer.parseInt(options.getOrDefault("pool", "8"));
        Duration timeout = Duration.ofSeconds(Long.parseLong(options.getOrDefault("timeout", "30")));
        // Portals take their API keys in the query string, as old scrapers send them.
        String query = options.containsKey("api-key") ? "?apikey=" + options.get("api-key") : "";

        AtomicInteger next = new AtomicInteger();
        AtomicInteger fetched = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> firstFailure = new AtomicReference<>();
        long start = System.nanoTime();
        try (Fetcher fetcher = fetcherOrExit(client, pool, timeout)) {
            List<Thread> workers = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                String worker = "w" + w;
                Thread thread = new Thread(() -> {
                    for (int i = next.getAndIncrement(); i < records; i = next.getAndIncrement()) {
                        try {
                            int status = fetcher.get(url + "/records/" + i + query, worker);
                            (status == 200 ? fetched : refused).incrementAndGet();
                        } catch (IOException | RuntimeException e) {
                            failed.incrementAndGet();
                            firstFailure.compareAndSet(null, e.toString());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                }, "scraper-" + worker);
                workers.add(thread);
                thread.start();
            }
            for (Thread thread : workers) {
                thread.join();
            }
        }
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        System.out.println(new ScraperResult(client, records, fetched.get(), refused.get(), failed.get(), elapsed,
                firstFailure.get()).lines());
    }

    /** The chosen client; one unknown, or one this Java cannot run, ends the scraper with one line, not a stack trace. */
    private static Fetcher fetcherOrExit(String client, int pool, Duration timeout) throws ReflectiveOperationException {
        try {
            return fetcher(client, pool, timeout);
        } catch (IllegalArgumentException e) {
            System.err.println(ScraperResult.ERROR + e.getMessage());
            System.exit(2);
            throw e;
        }
    }

    private static Fetcher fetcher(String client, int pool, Duration timeout) throws ReflectiveOperationException {
        switch (client) {
            case "jdk":
            case "jdk-async":
                return newerJavaFetcher("JdkFetcher", "the jdk clients need Java 11 or later",
                        new Class<?>[] {boolean.class, Duration.class}, client.equals("jdk-async"), timeout);
            case "apache5":
                return new Apache5Fetcher(pool, timeout, false);
            case "apache5-default":
                return new Apache5Fetcher(pool, timeout, true);
            case "apache5-async":
                return new Apache5AsyncFetcher(timeout);
            case "apache4":
                return new Apache4Fetcher(pool, timeout, false, false);
            case "apache4-literal":
                return new Apache4Fetcher(pool, timeout, true, false);
            case "apache4-legacy":
                return new Apache4Fetcher(pool, timeout, false, true);
            case "apache4-async":
                return new Apache4AsyncFetcher(timeout);
            case "urlconnection":
                return new UrlConnectionFetcher(timeout);
            case "okhttp":
                return new OkHttpFetcher(false, timeout);
            case "okhttp-async":
                return new OkHttpFetcher(true, timeout);
            case "jetty":
                return newerJavaFetcher("JettyFetcher", "the jetty client (Jetty 12) needs Java 17 or later",
                        new Class<?>[] {Duration.class}, timeout);
            case "commons3":
                return new CommonsHttp3Fetcher(pool, timeout);
            case "asynchttpclient":
                return new AsyncHttpClientFetcher(timeout);
            case "vertx":
                return new VertxWebClientFetcher(timeout);
            case "spring-webclient":
                return newerJavaFetcher("SpringWebClientFetcher", "the spring-webclient client (Spring 6) needs Java 17 or later",
                        new Class<?>[] {Duration.class}, timeout);
            default:
                if (client.indexOf('.') > 0) {
                    return (Fetcher) Class.forName(client).getConstructor(Duration.class).newInstance(timeout);
                }
                throw new IllegalArgumentException("unknown client " + client
                        + "; use jdk, jdk-async, apache5, apache5-default, apache5-async, apache4, apache4-literal, apache4-legacy, "
                        + "apache4-async, urlconnection, okhttp, okhttp-async, jetty, commons3, asynchttpclient, vertx, spring-webclient, "
                        + "or a Fetcher's class name");
        }
    }

    /**
     * A fetcher built for a newer Java than the rest of the scraper's 8, loaded only when chosen: on an older Java, an
     * {@link IllegalArgumentException} that says which Java it needs.
     */
    private static Fetcher newerJavaFetcher(String className, String needs, Class<?>[] parameters, Object... arguments) {
        try {
            Constructor<?> constructor = Class.forName("dev.retryafter.demo.scraper." + className).getDeclaredConstructor(parameters);
            return (Fetcher) constructor.newInstance(arguments);
        } catch (UnsupportedClassVersionError e) {
            throw new IllegalArgumentException(needs + "; this is Java " + System.getProperty("java.version"), e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new TreeMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value, got " + args[i]);
            }
            options.put(args[i].substring(2), args[++i]);
        }
        return options;
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }
}
