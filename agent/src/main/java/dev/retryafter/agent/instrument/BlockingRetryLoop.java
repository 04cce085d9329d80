package dev.retryafter.agent.instrument;

import dev.retryafter.agent.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;

import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * The steps of the retry loop that Apache advice runs inside {@code doExecute}, for both major
 * versions: the advice turns Apache types into a status and a header, and calls these. The loop
 * itself is the advice's {@code repeatOn}: the method body runs again while {@link #shouldRetry}
 * says so.
 */
public final class BlockingRetryLoop {

    private final RetryEngine engine;
    private final CallDepth depth;

    public BlockingRetryLoop(RetryEngine engine, CallDepth depth) {
        this.engine = engine;
        this.depth = depth;
    }

    /** Before the first attempt: waits for its turn; null when this call is not governed (nested, or the agent failed). */
    public Call begin(String scheme, String host, int port, boolean replayable) throws IOException {
        if (depth.isInside() || host == null) {
            return null;
        }
        Call call;
        try {
            call = engine.open(Endpoint.host(host), Endpoint.port(scheme, port), replayable);
        } catch (RuntimeException e) {
            AgentLog.failure("opening a call", e);
            return null;
        }
        depth.enter(call);
        awaitTurn(call);
        return call;
    }

    /** After an attempt: true when the response is a refusal to discard and retry. */
    public boolean shouldRetry(Call call, int status, String retryAfter) {
        boolean retry = false;
        try {
            retry = call.onResponse(status, retryAfter);
        } catch (RuntimeException e) {
            AgentLog.failure("deciding on a response", e);
        }
        call.endAttempt();
        if (!retry) {
            depth.restore(null);
        }
        return retry;
    }

    /** Between attempts, once the refused response went back to the pool. */
    public void awaitRetry(Call call) throws IOException {
        awaitTurn(call);
    }

    public void failed(Call call) {
        call.endAttempt();
        depth.restore(null);
    }

    private void awaitTurn(Call call) throws IOException {
        try {
            call.awaitTurn();
        } catch (HostHeldException e) {
            depth.restore(null);
            throw e;
        } catch (InterruptedException e) {
            depth.restore(null);
            InterruptedIOException interrupted = new InterruptedIOException("interrupted while waiting out a refusal from " + call.host().key());
            interrupted.initCause(e);
            throw interrupted; // the engine kept the interrupt flag set
        } catch (RuntimeException e) {
            AgentLog.failure("waiting for a turn", e);
        }
    }
}
