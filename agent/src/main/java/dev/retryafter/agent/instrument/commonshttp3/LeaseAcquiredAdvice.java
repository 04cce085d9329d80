package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.commons.httpclient.HttpConnection;
import org.apache.commons.httpclient.HttpConnectionManager;
import org.apache.commons.httpclient.SimpleHttpConnectionManager;

/**
 * Commons HttpClient 3 {@code HttpMethodBase.execute(HttpState, HttpConnection)}, on the thread running the attempt: the
 * connection the method executes on is leased, so a governed attempt keeps its permit while the application reads the
 * body, as with Apache 4 and 5, until {@link LeaseReleasedAdvice}. The lease is the connection (the pool's per-use
 * adapter), or, for the single-connection {@code SimpleHttpConnectionManager} ({@code new HttpClient()}'s), the
 * manager: its next {@code executeMethod} ends the response still open on it, so that call gives the lease back before
 * it waits for its own turn ({@link CommonsHttp3Calls#begin}). Inlined into a class file of version 46: calls only.
 */
public final class LeaseAcquiredAdvice {

    private LeaseAcquiredAdvice() {
    }

    @Advice.OnMethodEnter
    static void enter(@Advice.Argument(1) HttpConnection connection) {
        if (connection != null) {
            HttpConnectionManager manager = connection.getHttpConnectionManager();
            AgentHooks.connectionAcquired(manager instanceof SimpleHttpConnectionManager ? manager : connection);
        }
    }
}
