package dev.retryafter.it.apps;

import redis.clients.jedis.Jedis;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * An application with a Jedis of its own, talking to the same Redis the agent's fleet store uses:
 * it writes and reads its own key, fetches from a portal (which the agent governs, on Redis), then
 * lists the agent's keys with its own client. Prints where its Jedis came from and what it read.
 * Arguments: Redis port, portal URL.
 */
public final class OwnJedisApp {

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String url = args[1];
        System.out.println("app jedis from " + Jedis.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        System.out.println("app jedis loader is the application's: " + (Jedis.class.getClassLoader() == ClassLoader.getSystemClassLoader()));
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            jedis.set("app:greeting", "hello");
            System.out.println("app read " + jedis.get("app:greeting"));
            HttpClient client = HttpClient.newHttpClient();
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(url + "/records/" + i)).build(),
                        HttpResponse.BodyHandlers.ofString());
                System.out.println("app got " + response.statusCode());
            }
            System.out.println("app sees agent keys: " + !jedis.keys("retry-after:*").isEmpty());
            System.out.println("app read again " + jedis.get("app:greeting"));
        }
    }
}
