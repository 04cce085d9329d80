package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.CallDepth;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * HttpClient 5 classic {@code doExecute}, governed: the agent's loop around the client's own method,
 * called again for each attempt with this thread marked as inside the call, so that the advice lets
 * the original body run. A refused response's body is discarded within a small bound and the
 * response closed before the wait, so its pooled connection goes back (a pool of one would otherwise
 * deadlock), or, when the body did not end in time, is closed and not reused.
 *
 * <p>Until the first attempt is sent, any failure of the agent's own answers null, and the client
 * runs as without the agent. From then on the client's own exceptions pass unchanged, and the agent
 * never sends a request the client did not: it returns the response it has.
 */
public final class Apache5Execute {

    private final BlockingRetryLoop loop;
    private final CallDepth depth;
    /** Per class declaring {@code doExecute}: its {@link Apache5Handles}, or why there are none. */
    private final ClassValue<Object> handles = new ClassValue<Object>() {
        @Override
        protected Object computeValue(Class<?> declaring) {
            try {
                return Apache5Handles.of(declaring);
            } catch (Throwable t) {
                return t;
            }
        }
    };

    public Apache5Execute(BlockingRetryLoop loop, CallDepth depth) {
        this.loop = loop;
        this.depth = depth;
    }

    /** The final response, or null to let the original method run (the agent's own attempt, or nothing to govern). */
    public Object execute(Object client, Class<?> declaring, Object target, Object request, Object context) throws IOException {
        if (depth.isInside() || request == null) {
            return null; // a null request is the client's to refuse
        }
        Object found = handles.get(declaring);
        if (!(found instanceof Apache5Handles)) {
            AgentLog.failure("finding HttpClient 5's methods in " + declaring.getName(), (Throwable) found);
            return null;
        }
        Apache5Handles client5 = (Apache5Handles) found;
        String scheme;
        String hostName;
        int port;
        boolean replayable;
        try {
            Object host = target != null ? target : client5.targetOf(request);
            if (host == null) {
                return null; // the client refuses a request without a target
            }
            scheme = client5.scheme(host);
            hostName = client5.hostName(host);
            port = client5.port(host);
            replayable = client5.replayable(request);
        } catch (Throwable t) {
            if (!(t instanceof Exception) || t instanceof RuntimeException) {
                AgentLog.failure("reading an HttpClient 5 request", t);
            } // else the request's own HttpException: the client refuses it, with this same method
            return null;
        }
        Call call = loop.begin(scheme, hostName, port, replayable);
        return call == null ? null : attempts(client5, call, client, target, request, context);
    }

    private Object attempts(Apache5Handles client5, Call call, Object client, Object target, Object request, Object context)
            throws IOException {
        while (true) {
            Object response;
            try {
                response = client5.doExecute(client, target, request, context);
            } catch (Throwable t) {
                loop.failed(call);
                throw Apache5Execute.<RuntimeException>unchanged(t);
            }
            if (response == null) { // never, from Apache's doExecute; not a reason to send it twice
                loop.failed(call);
                throw new IOException("HttpClient 5's doExecute returned no response");
            }
            if (!shouldRetry(client5, call, response)) {
                return response;
            }
            discard(client5, response);
            loop.awaitRetry(call);
        }
    }

    private boolean shouldRetry(Apache5Handles client5, Call call, Object response) {
        int status;
        String retryAfter;
        try {
            status = client5.code(response);
            retryAfter = status >= AgentHooks.LOWEST_REFUSAL ? client5.header(response, "Retry-After") : null;
        } catch (Throwable t) {
            AgentLog.failure("reading an HttpClient 5 response", t);
            loop.handOver(call);
            return false;
        }
        return loop.shouldRetry(call, status, retryAfter);
    }

    /** Failing here drops the connection instead of reusing it: the retry opens another. */
    private void discard(Apache5Handles client5, Object response) {
        try {
            InputStream body = client5.body(response);
            if (body != null) {
                // core5's EofSensorInputStream.abort() discards the connection instead of reading the rest
                loop.discardRefused(body, "abort");
            }
        } catch (Throwable t) {
            rethrowIfError(t);
        }
        try {
            ((Closeable) response).close();
        } catch (Throwable t) {
            rethrowIfError(t);
        }
    }

    private static void rethrowIfError(Throwable t) {
        if (t instanceof Error) {
            throw (Error) t;
        }
    }

    /** What the client threw, as it threw it: {@code doExecute} declares only IOException, the handle Throwable. */
    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException unchanged(Throwable thrown) throws T {
        throw (T) thrown;
    }
}
