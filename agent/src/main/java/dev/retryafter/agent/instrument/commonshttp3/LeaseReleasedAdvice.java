package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.commons.httpclient.HttpConnection;
import org.apache.commons.httpclient.HttpConnectionManager;
import org.apache.commons.httpclient.SimpleHttpConnectionManager;

/**
 * Commons HttpClient 3 {@code HttpMethodBase.ensureConnectionRelease()}, on any thread, where every way of giving the
 * method's connection back meets ({@code releaseConnection()}, the body read to its end, no body at all): the lease
 * {@link LeaseAcquiredAdvice} took goes back, read before the release clears it. Version 46 class file: calls only.
 */
public final class LeaseReleasedAdvice {

    private LeaseReleasedAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.FieldValue("responseConnection") HttpConnection connection) {
        HttpConnectionManager manager = connection == null ? null : connection.getHttpConnectionManager();
        return manager instanceof SimpleHttpConnectionManager ? manager : connection;
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.Enter Object lease) {
        if (lease != null) {
            AgentHooks.connectionReleased(lease);
        }
    }
}
