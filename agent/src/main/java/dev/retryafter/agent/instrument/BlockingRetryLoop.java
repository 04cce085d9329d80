package dev.retryafter.agent.instrument;

import dev.retryafter.agent.report.Turns;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.CancellationException;

/**
 * The retry loop of every blocking client (Apache 4 and 5, Commons HttpClient 3, OkHttp), written once: the
 * client's advice hands over the host at {@link #begin} and each attempt's response at {@link #respond}, and the
 * loop itself is the advice's {@code repeatOn}: the advised method's body runs again while {@link #respond} says so.
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
        return begin(scheme, host, port, replayable, null, null);
    }

    /** As {@link #begin(String, String, int, boolean)}, for a request the client can cancel: {@code cancels} knows its call. */
    public Call begin(String scheme, String host, int port, boolean replayable, CancellableCalls cancels, Object request)
            throws IOException {
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
        if (cancels != null && request != null) {
            cancels.put(request, call);
        }
        awaitTurn(call, null);
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

    /**
     * After an attempt, the one exit of every blocking client's advice: {@code response} as the advice has it (null, with
     * {@code thrown}, when the attempt failed) and its status. True when it was a refusal, now discarded within
     * {@link RefusedBody}'s bounds and given back to the pool (a pool of one would otherwise deadlock), and the next
     * attempt's turn has come: the advice sends the request again. Only the agent's deliberate answers leave as an
     * {@link IOException}: a held host, an interrupted wait.
     */
    public boolean respond(BlockingClient client, Call call, Object response, int status, Throwable thrown) throws IOException {
        if (thrown != null || response == null) {
            failed(call);
            return false;
        }
        String retryAfter = null;
        try {
            if (call.wantsHeaders(status)) {
                client.offerHeaders(response, call);
            }
            if (status >= AgentHooks.LOWEST_REFUSAL) {
                retryAfter = client.retryAfter(response);
            }
        } catch (Throwable t) {
            AgentLog.failure("reading a response's headers", t); // decided on the status and what was read
        }
        if (!shouldRetry(call, status, retryAfter)) {
            return false;
        }
        InputStream body = null;
        try {
            body = client.refusedBody(response);
        } catch (Throwable unreadable) {
            // released all the same: the connection is dropped instead of reused, and the retry opens another
        }
        try {
            RefusedBody.discard(body, client.abortMethod());
        } catch (Throwable t) {
            AgentLog.failure("discarding a refused body", t);
        }
        try {
            client.release(response);
        } catch (Throwable t) {
            AgentLog.failure("releasing a refused response", t);
        }
        awaitTurn(call, client);
        return true;
    }

    /** A client's holder of a pooled connection gave it back before a call began (see {@link ConnectionLeases#released}). */
    public void connectionReleased(Object holder) {
        leases.released(holder);
    }

    public void failed(Call call) {
        endAttempt(call);
        leases.attemptEnded();
        depth.restore(null);
    }

    /** {@code client}: the client whose refusal was waited out, which says how a request cancelled meanwhile fails; null before the first attempt. */
    private void awaitTurn(Call call, BlockingClient client) throws IOException {
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
        } catch (CancellationException e) {
            if (!call.abandoned()) {
                AgentLog.failure("waiting for a turn", e);
            } else { // the application cancelled the request: the client fails it as cancelled, at its next attempt or here
                IOException cancelled = client == null ? null : client.cancelledWhileWaiting(call.host().key());
                if (cancelled != null) {
                    depth.restore(null);
                    throw cancelled;
                }
            }
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
