package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.Endpoint;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/** Turns a {@code java.net.http} request into an engine call. */
final class JdkRequests {

    /**
     * The JDK's publishers that read their whole source again on each subscription, by exact class:
     * {@code noBody}, {@code ofString}, {@code ofByteArray} and {@code ofFile}. Nothing else is
     * vouched for: {@code ofByteArrays} iterates an {@code Iterable} that may be one-shot (a second
     * POST then went out empty), a stream's supplier usually hands back the same, spent, stream,
     * {@code concat} and {@code fromPublisher} wrap what no one can see into, and an application's
     * own publisher may do anything. A subclass is not vouched for either.
     */
    private static final Set<String> REPLAYABLE = Collections.unmodifiableSet(new HashSet<>(Arrays.asList(
            "jdk.internal.net.http.RequestPublishers$EmptyPublisher",
            "jdk.internal.net.http.RequestPublishers$StringPublisher",
            "jdk.internal.net.http.RequestPublishers$ByteArrayPublisher",
            "jdk.internal.net.http.RequestPublishers$FilePublisher")));

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
        } catch (Throwable e) {
            AgentLog.failure("opening a java.net.http call", e);
            return null;
        }
    }

    /** Whether the body can be sent twice: no body, or one of the publishers the JDK proves replayable. */
    static boolean isReplayable(HttpRequest request) {
        BodyPublisher body = request.bodyPublisher().orElse(null);
        return body == null || REPLAYABLE.contains(body.getClass().getName());
    }
}
