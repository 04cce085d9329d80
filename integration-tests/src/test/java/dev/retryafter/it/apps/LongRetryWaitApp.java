package dev.retryafter.it.apps;

import java.net.HttpURLConnection;
import java.net.URL;
import java.util.concurrent.TimeUnit;

/** One {@code HttpURLConnection} GET of {@code args[0]}: prints its status and how long it took. */
public final class LongRetryWaitApp {

    private LongRetryWaitApp() {
    }

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        HttpURLConnection connection = (HttpURLConnection) new URL(args[0]).openConnection();
        int status = connection.getResponseCode();
        connection.getInputStream().close();
        System.out.println("STATUS " + status + " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
    }
}
