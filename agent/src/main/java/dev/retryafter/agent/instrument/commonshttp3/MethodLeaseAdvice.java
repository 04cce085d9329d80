package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import org.apache.commons.httpclient.HttpConnection;
import org.apache.commons.httpclient.HttpConnectionManager;
import org.apache.commons.httpclient.SimpleHttpConnectionManager;

/**
 * Commons HttpClient 3 {@code HttpMethodBase}: the connection a method executes on, and its release,
 * where every way of giving it back meets ({@code releaseConnection()}, the body read to its end, no
 * body at all), so a governed attempt keeps its permit while the application reads the body, as with
 * Apache 4 and 5. The lease is the connection the method was given (the pool's per-use adapter), or,
 * for the single-connection {@code SimpleHttpConnectionManager} (what {@code new HttpClient()} uses),
 * the manager: its next {@code executeMethod} ends the response that was still open on it (3.x reads or
 * closes it), so that call gives the lease back before it waits for its own turn ({@link ExecuteAdvice}).
 * Inlined into a class file of version 46: calls only.
 */
public final class MethodLeaseAdvice {

    private MethodLeaseAdvice() {
    }

    /** {@code execute(HttpState, HttpConnection)}, on the thread running the attempt. */
    public static final class Acquired {

        private Acquired() {
        }

        @Advice.OnMethodEnter
        static void enter(@Advice.Argument(1) HttpConnection connection) {
            if (connection != null) {
                HttpConnectionManager manager = connection.getHttpConnectionManager();
                AgentHooks.connectionAcquired(manager instanceof SimpleHttpConnectionManager ? manager : connection);
            }
        }
    }

    /** {@code ensureConnectionRelease()}: the method gives its connection back, on any thread. */
    public static final class Released {

        private Released() {
        }

        @Advice.OnMethodEnter
        static Object enter(@Advice.FieldValue("responseConnection") HttpConnection connection) {
            if (connection == null) {
                return null;
            }
            HttpConnectionManager manager = connection.getHttpConnectionManager();
            return manager instanceof SimpleHttpConnectionManager ? manager : connection;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Object lease) {
            if (lease != null) {
                AgentHooks.connectionReleased(lease);
            }
        }
    }
}
