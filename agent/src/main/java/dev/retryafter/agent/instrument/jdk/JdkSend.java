package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.report.Turns;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;

/** {@code HttpClient.send}, governed: the agent's loop around the client's own, original send. */
public final class JdkSend {

    private final RetryEngine engine;
    private final CallDepth depth;

    public JdkSend(RetryEngine engine, CallDepth depth) {
        this.engine = engine;
        this.depth = depth;
    }

    /** The final response, or null to let the original method run (a nested call, or nothing to govern). */
    public HttpResponse<?> send(HttpClient client, HttpRequest request, BodyHandler<?> handler)
            throws IOException, InterruptedException {
        if (depth.isInside() || request == null || handler == null) {
            return null; // a null is the JDK's to refuse, at once, before anything is sent
        }
        Call call = JdkRequests.open(engine, request);
        return call == null ? null : loop(client, request, handler, call);
    }

    private <T> HttpResponse<T> loop(HttpClient client, HttpRequest request, BodyHandler<T> handler, Call call)
            throws IOException, InterruptedException {
        Call previous = depth.enter(call);
        try {
            while (true) {
                try {
                    Turns.await(call);
                } catch (InterruptedException e) {
                    Thread.interrupted(); // the JDK's send clears the flag when it throws: so does this one
                    throw e;
                } catch (RuntimeException | Error e) {
                    AgentLog.failure("waiting for a java.net.http turn", e);
                }
                HttpResponse<T> response = null;
                IOException refusalBodyFailed = null;
                GovernedBodyHandler<T> governed = new GovernedBodyHandler<>(handler, call);
                try {
                    response = client.send(request, governed);
                } catch (IOException e) {
                    if (!governed.discardedARefusal()) {
                        throw e;
                    }
                    refusalBodyFailed = e; // the body of a refusal being retried: see discardedARefusal
                } finally {
                    governed.endAttempt();
                }
                if (!governed.retryRequested()) {
                    if (refusalBodyFailed != null) {
                        throw refusalBodyFailed;
                    }
                    return response;
                }
            }
        } finally {
            depth.restore(previous);
        }
    }
}
