package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.Endpoint;

import java.net.URI;
import java.net.http.HttpRequest;

/** Turns a {@code java.net.http} request into an engine call. */
final class JdkRequests {

    private JdkRequests() {
    }

    /** A call for the request's host, or null when it cannot be governed (no host, or the agent failed). */
    static Call open(RetryEngine engine, HttpRequest request) {
        try {
            URI uri = request.uri();
            String host = uri.getHost();
            if (host == null) {
                return null;
            }
            return engine.open(Endpoint.host(host), Endpoint.port(uri.getScheme(), uri.getPort()), isReplayable(request));
        } catch (RuntimeException e) {
            AgentLog.failure("opening a java.net.http call", e);
            return null;
        }
    }

    /**
     * Whether the body can be sent twice. The JDK's own publishers re-read their source on each
     * subscription, except a stream (the supplier usually hands back the same, spent, stream), an
     * adapted publisher, and a concatenation of parts no one can vouch for; an application's own
     * publisher is not vouched for either.
     */
    static boolean isReplayable(HttpRequest request) {
        if (request.bodyPublisher().isEmpty()) {
            return true;
        }
        String type = request.bodyPublisher().get().getClass().getName();
        return type.startsWith("jdk.internal.net.http.RequestPublishers$")
                && !type.endsWith("$InputStreamPublisher")
                && !type.endsWith("$PublisherAdapter")
                && !type.endsWith("$AggregatePublisher");
    }
}
