package dev.retryafter.agent.instrument;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * HTTP clients the agent does not govern, noticed as their classes load: one lookup by name per class,
 * next to the one the transformer makes anyway. Each is said at once, in one WARN when it first
 * loads (before its first request, as a client loads its classes when built), and again in the exit
 * line, so a scraper that runs for hours learns it the first minute, not at its end or after a
 * blocked IP.
 */
public final class UngovernedClients {

    /** A class each client loads whenever it is used, by internal name, and how to name the client. */
    private static final Map<String, String> MARKERS = new HashMap<>();
    /** A governed client's class, by internal name, and the marked client it is built on: its classes load under it, unnamed. */
    private static final Map<String, String[]> COVERS = new HashMap<>();

    static {
        mark("io.netty.handler.codec.http.HttpClientCodec", "Netty HTTP codec");
        mark("io.vertx.core.http.impl.HttpClientImpl", "Vert.x HttpClient");
        mark("io.helidon.webclient.api.WebClient", "Helidon WebClient");
        // AsyncHttpClient is governed, and loads Netty's codec for its connections: after its interface, which its client
        // class implements (the client class itself is a target of the transformer's, and never passes here).
        COVERS.put("org/asynchttpclient/AsyncHttpClient", new String[] {MARKERS.get("io/netty/handler/codec/http/HttpClientCodec")});
        // Vert.x's WebClient is governed, and is built on Vert.x's HttpClient and Netty's codec (made after the WebClient interface
        // loads, unless the application wraps an HttpClient it made before).
        COVERS.put("io/vertx/ext/web/client/WebClient", new String[] {MARKERS.get("io/vertx/core/http/impl/HttpClientImpl"),
            MARKERS.get("io/netty/handler/codec/http/HttpClientCodec")});
        // Reactor Netty's HttpClient is governed, and loads Netty's codec for its connections after it.
        COVERS.put("reactor/netty/http/client/HttpClient", new String[] {MARKERS.get("io/netty/handler/codec/http/HttpClientCodec")});
    }

    private final Set<String> loaded = ConcurrentHashMap.newKeySet();
    private final Set<String> covered = ConcurrentHashMap.newKeySet();
    /** Where the first sighting of each is said; nowhere for tests that only read {@link #loaded()}. */
    private final Consumer<String> warn;

    /** Says nothing at first sight: for tests that read {@link #loaded()}. */
    public UngovernedClients() {
        this(new Consumer<String>() { // not a lambda: see AgentInstaller
            @Override
            public void accept(String line) {
            }
        });
    }

    public UngovernedClients(Consumer<String> warn) {
        this.warn = warn;
    }

    private static void mark(String className, String client) {
        MARKERS.put(className.replace('.', '/'), client + " (" + className + ")");
    }

    /** Called for every class the JVM loads; cheap for all but the marked few. */
    public void onLoaded(String internalName) {
        String client = MARKERS.get(internalName);
        if (client != null) {
            seen(client);
        }
        String[] under = COVERS.get(internalName);
        if (under != null) {
            for (String beneath : under) {
                if (covered.add(beneath)) {
                    loaded.remove(beneath);
                }
            }
        }
    }

    private void seen(String client) {
        if (!covered.contains(client) && loaded.add(client)) {
            try {
                warn.accept("ungoverned HTTP client loaded: " + client + "; the agent does not govern it, so its requests "
                        + "will be neither paced nor retried");
            } catch (Throwable t) {
                // said at exit all the same
            }
        }
    }

    /**
     * A client loaded that the agent recognised and does not govern: a relocated copy of one it
     * governs (in a fat jar) whose classes are not of the shape the agent changes, or could not be changed.
     */
    public void notGoverned(String client) {
        seen(client);
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
                            + "(classic or async), Commons HttpClient 3, OkHttp 2-5, Jetty HttpClient 9.4-12, AsyncHttpClient 2-3, Vert.x WebClient or Reactor Netty HttpClient, the clients the agent governs";
        }
        return "ungoverned HTTP: this JVM loaded " + String.join(", ", ungoverned)
                + ", which the agent does not govern: its requests were neither paced nor retried"
                + (anyGoverned ? "" : "; no request was governed at all");
    }
}
