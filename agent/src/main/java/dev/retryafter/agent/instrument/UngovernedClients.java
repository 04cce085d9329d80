package dev.retryafter.agent.instrument;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * HTTP clients the agent does not govern, noticed as their classes load: one lookup by name per class,
 * next to the one the transformer makes anyway. At exit the agent says in one line which were loaded,
 * so a user learns the first time that their traffic went unpaced, not after a blocked IP.
 */
public final class UngovernedClients {

    /** A class each client loads whenever it is used, by internal name, and how to name the client. */
    private static final Map<String, String> MARKERS = new HashMap<>();

    static {
        mark("org.apache.http.impl.nio.client.CloseableHttpAsyncClient", "Apache HttpAsyncClient 4");
        mark("org.eclipse.jetty.client.HttpClient", "Jetty HttpClient");
        mark("io.netty.handler.codec.http.HttpClientCodec", "Netty HTTP codec");
        mark("reactor.netty.http.client.HttpClient", "Reactor Netty HttpClient");
        mark("org.asynchttpclient.DefaultAsyncHttpClient", "AsyncHttpClient");
        mark("io.vertx.core.http.impl.HttpClientImpl", "Vert.x HttpClient");
        mark("com.squareup.okhttp.OkHttpClient", "OkHttp 2");
        mark("io.helidon.webclient.api.WebClient", "Helidon WebClient");
    }

    private final Set<String> loaded = ConcurrentHashMap.newKeySet();

    private static void mark(String className, String client) {
        MARKERS.put(className.replace('.', '/'), client + " (" + className + ")");
    }

    /** Called for every class the JVM loads; cheap for all but the marked few. */
    public void onLoaded(String internalName) {
        String client = MARKERS.get(internalName);
        if (client != null) {
            loaded.add(client);
        }
    }

    /**
     * A client loaded that the agent recognised and does not govern: a relocated copy of one it
     * governs (in a fat jar) whose classes are not of the shape the agent changes, or could not be changed.
     */
    public void notGoverned(String client) {
        loaded.add(client);
    }

    /** The ungoverned clients loaded so far, sorted. */
    public List<String> loaded() {
        List<String> clients = new ArrayList<>(loaded);
        Collections.sort(clients);
        return clients;
    }

    /**
     * The exit line, or null when there is nothing to warn about: some request was governed and no
     * ungoverned client was loaded.
     */
    public static String note(List<String> ungoverned, boolean anyGoverned) {
        if (ungoverned.isEmpty()) {
            return anyGoverned ? null
                    : "no request was governed: nothing went through java.net.http, HttpURLConnection, Apache HttpClient 4 or 5 "
                            + "(classic or async), Commons HttpClient 3 or OkHttp 3-5, the clients the agent governs";
        }
        return "ungoverned HTTP: this JVM loaded " + String.join(", ", ungoverned)
                + ", which the agent does not govern: its requests were neither paced nor retried"
                + (anyGoverned ? "" : "; no request was governed at all");
    }
}
