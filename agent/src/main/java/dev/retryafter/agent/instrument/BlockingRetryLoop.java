package dev.retryafter.agent.instrument;

import dev.retryafter.agent.report.Turns;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;

/**
 * The steps of the retry loop that Apache advice runs inside {@code doExecute}, for both major
 * versions: the advice turns Apache types into a status and a header, and calls these. The loop
 * itself is the advice's {@code repeatOn}: the method body runs again while {@link #shouldRetry}
 * says so.
 *
 * <p>No application code runs inside these steps, only the engine and its listener: any Throwable
 * they throw is the agent's own, is logged once per step, and the call goes on as the client alone
 * would make it. Only the agent's deliberate answers leave: a held host, an interrupted wait.
 */
public final class BlockingRetryLoop {

    private final RetryEngine engine;
    private final CallDepth depth;
    private final ConnectionLeases leases;

    public BlockingRetryLoop(RetryEngine engine, CallDepth depth, ConnectionLeases leases) {
        this.engine = engine;
        this.depth = depth;
        this.leases = leases;
    }

    /** Before the first attempt: waits for its turn; null when this call is not governed (nested, or the agent failed). */
    public Call begin(String scheme, String host, int port, boolean replayable) throws IOException {
        if (depth.isInside() || host == null) {
            return null;
        }
        Call call;
        try {
            call = engine.open(Endpoint.host(host), Endpoint.port(scheme, port), replayable);
        } catch (Throwable t) {
            AgentLog.failure("opening a call", t);
            return null;
        }
        depth.enter(call);
        awaitTurn(call);
        return call;
    }

    /**
     * After an attempt: true when the response is a refusal to discard and retry. Otherwise the
     * response goes to the application, and the attempt's permit with it, until its connection goes back.
     */
    public boolean shouldRetry(Call call, int status, String retryAfter) {
        boolean retry = false;
        try {
            retry = call.onResponse(status, retryAfter);
        } catch (Throwable t) {
            AgentLog.failure("deciding on a response", t);
        }
        if (retry) {
            endAttempt(call);
            leases.attemptEnded();
        } else {
            depth.restore(null);
            try {
                if (!leases.handOver()) {
                    call.endAttempt();
                }
            } catch (Throwable t) {
                AgentLog.failure("handing a response over", t);
                endAttempt(call);
            }
        }
        return retry;
    }

    /** A refused response's body, before the retry: true when it was read to its end and its connection may be reused. */
    public boolean discardRefused(InputStream body, String abortMethod) {
        return RefusedBody.discard(body, abortMethod);
    }

    /** Between attempts, once the refused response went back to the pool. */
    public void awaitRetry(Call call) throws IOException {
        awaitTurn(call);
    }

    public void failed(Call call) {
        endAttempt(call);
        leases.attemptEnded();
        depth.restore(null);
    }

    private void awaitTurn(Call call) throws IOException {
        try {
            Turns.await(call);
        } catch (HostHeldException e) {
            depth.restore(null);
            throw e;
        } catch (InterruptedException e) {
            depth.restore(null);
            InterruptedIOException interrupted = new InterruptedIOException("interrupted while waiting out a refusal from " + call.host().key());
            interrupted.initCause(e);
            throw interrupted; // the engine kept the interrupt flag set
        } catch (Throwable t) {
            AgentLog.failure("waiting for a turn", t);
        }
        leases.attemptStarts(call);
    }

    private static void endAttempt(Call call) {
        try {
            call.endAttempt();
        } catch (Throwable t) {
            AgentLog.failure("ending an attempt", t);
        }
    }
}
