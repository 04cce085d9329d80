package dev.retryafter.it.apps;

import java.util.concurrent.TimeUnit;

/**
 * After a first GET that loads the client's classes ({@code args[1]}), a GET with Apache HttpClient 4
 * ({@code HttpGet.abort()}), 5 ({@code HttpGet.cancel()}), Commons HttpClient 3 ({@code GetMethod.abort()}) or
 * {@code HttpURLConnection} ({@code disconnect()}) that another thread aborts 2 s in, as a watchdog for a hard timeout
 * does, while the agent waits out the host's refusal ({@code args[2]}). Prints how it ended and after how long.
 */
public final class AbortWhileWaitingApp {

    private AbortWhileWaitingApp() {
    }

    public static void main(String[] args) throws Exception {
        String ended;
        long start;
        if (args[0].equals("apache4")) {
            try (org.apache.http.impl.client.CloseableHttpClient client = org.apache.http.impl.client.HttpClients.createDefault()) {
                client.execute(new org.apache.http.client.methods.HttpGet(args[1])).close();
                org.apache.http.client.methods.HttpGet get = new org.apache.http.client.methods.HttpGet(args[2]);
                start = System.nanoTime();
                abortLater(get::abort);
                try (org.apache.http.client.methods.CloseableHttpResponse response = client.execute(get)) {
                    ended = "status " + response.getStatusLine().getStatusCode();
                } catch (java.io.IOException e) {
                    ended = e.toString();
                }
            }
        } else if (args[0].equals("commonshttp3")) {
            org.apache.commons.httpclient.HttpClient client = new org.apache.commons.httpclient.HttpClient();
            org.apache.commons.httpclient.methods.GetMethod warmUp = new org.apache.commons.httpclient.methods.GetMethod(args[1]);
            client.executeMethod(warmUp);
            warmUp.releaseConnection();
            org.apache.commons.httpclient.methods.GetMethod get = new org.apache.commons.httpclient.methods.GetMethod(args[2]);
            start = System.nanoTime();
            abortLater(get::abort);
            try {
                ended = "status " + client.executeMethod(get);
            } catch (java.io.IOException e) {
                ended = e.toString();
            } finally {
                get.releaseConnection();
            }
        } else if (args[0].equals("urlconnection-redirect")) {
            // A first request to where the redirect leads (args[3]) is refused, and waits there on a thread of its own;
            // the redirect's follow-up waits for that host's turn too, and is disconnected then.
            Thread first = new Thread(() -> {
                try {
                    ((java.net.HttpURLConnection) new java.net.URL(args[3]).openConnection()).getResponseCode();
                } catch (java.io.IOException ignored) {
                    // only its refusal matters
                }
            });
            first.setDaemon(true);
            first.start();
            Thread.sleep(1_000);
            disconnected(args[2]);
            return;
        } else if (args[0].equals("urlconnection")) {
            ((java.net.HttpURLConnection) new java.net.URL(args[1]).openConnection()).getInputStream().close();
            disconnected(args[2]);
            return;
        } else {
            try (org.apache.hc.client5.http.impl.classic.CloseableHttpClient client =
                         org.apache.hc.client5.http.impl.classic.HttpClients.createDefault()) {
                client.execute(new org.apache.hc.client5.http.classic.methods.HttpGet(args[1])).close();
                org.apache.hc.client5.http.classic.methods.HttpGet get = new org.apache.hc.client5.http.classic.methods.HttpGet(args[2]);
                start = System.nanoTime();
                abortLater(get::cancel);
                try (org.apache.hc.client5.http.impl.classic.CloseableHttpResponse response = client.execute(get)) {
                    ended = "status " + response.getCode();
                } catch (java.io.IOException e) {
                    ended = e.toString();
                }
            }
        }
        System.out.println("ABORT " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + ended);
        System.exit(0);
    }

    /** A GET of {@code url} with {@code HttpURLConnection}, disconnected 2 s in: prints how it ended, and exits. */
    private static void disconnected(String url) throws java.io.IOException {
        java.net.HttpURLConnection connection = (java.net.HttpURLConnection) new java.net.URL(url).openConnection();
        long start = System.nanoTime();
        abortLater(connection::disconnect);
        String ended;
        try {
            ended = "status " + connection.getResponseCode();
        } catch (java.io.IOException e) {
            ended = e.toString();
        }
        System.out.println("DISCONNECT " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + ended);
        System.exit(0);
    }

    /** Runs {@code abort} on a daemon thread 2 s from now, as an application's watchdog for a hard timeout does. */
    static void abortLater(Runnable abort) {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(2_000); // the first refusal comes at once; the agent's wait after it is far longer
            } catch (InterruptedException e) {
                return;
            }
            abort.run();
        });
        watchdog.setDaemon(true);
        watchdog.start();
    }
}
