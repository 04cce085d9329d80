package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;

import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.util.List;
import java.util.Map;

/**
 * Decides from the status and headers alone, before any body is read. A refusal the agent will
 * retry never reaches the application's handler: its body is discarded within a bound of time and
 * bytes ({@link DiscardedRefusal}), so a large, stalled or endless 429 cannot hold up the retry.
 */
final class GovernedBodyHandler<T> implements BodyHandler<T> {

    private final BodyHandler<T> application;
    private final Call call;
    private volatile DiscardedRefusal discarded;

    GovernedBodyHandler(BodyHandler<T> application, Call call) {
        this.application = application;
        this.call = call;
    }

    @Override
    public BodySubscriber<T> apply(ResponseInfo info) {
        boolean retry = false;
        try {
            int status = info.statusCode();
            if (call.wantsHeaders(status)) {
                for (Map.Entry<String, List<String>> header : info.headers().map().entrySet()) { // no lambda: see AgentInstaller
                    for (String value : header.getValue()) {
                        call.offerHeader(header.getKey(), value);
                    }
                }
            }
            retry = call.onResponse(status, status >= AgentHooks.LOWEST_REFUSAL ? info.headers().firstValue("Retry-After").orElse(null) : null);
        } catch (Throwable e) {
            AgentLog.failure("deciding on a java.net.http response", e);
        }
        if (!retry) {
            return application.apply(info);
        }
        @SuppressWarnings("unchecked") // the body of a discarded refusal is never seen by anyone
        BodySubscriber<T> refusal = (BodySubscriber<T>) (discarded = new DiscardedRefusal());
        return refusal;
    }

    /**
     * Whether this attempt's response was a refusal the agent retries. Its body is the agent's
     * alone, so a failure reading it (a body cut short: from Java 21 the JDK fails the exchange
     * with it) is no reason to stop: the refusal is retried all the same.
     */
    boolean discardedARefusal() {
        return discarded != null;
    }

    /**
     * Once the client has delivered this attempt's response, or failed it: a refused body given up on lets its connection
     * go, and the attempt ends (its permit goes back). A failure of the agent's own here is logged, never thrown: the
     * response or the failure in hand is the application's.
     */
    void endAttempt() {
        DiscardedRefusal refusal = discarded;
        try {
            if (refusal != null) {
                refusal.releaseConnection();
            }
        } catch (Throwable t) {
            AgentLog.failure("letting a java.net.http refusal's connection go", t);
        }
        try {
            call.endAttempt();
        } catch (Throwable t) {
            AgentLog.failure("ending a java.net.http attempt", t);
        }
    }

    /**
     * Whether the call goes on to another attempt. On a failure of the agent's own, only if this response's body was
     * discarded (the application's handler never saw it, so it cannot be the answer): the next attempt's response, which
     * a broken agent no longer discards, is.
     */
    boolean retryRequested() {
        try {
            return call.retryRequested();
        } catch (Throwable t) {
            AgentLog.failure("deciding on a java.net.http retry", t);
            return discardedARefusal();
        }
    }
}
