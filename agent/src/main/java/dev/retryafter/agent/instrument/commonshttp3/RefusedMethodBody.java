package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.instrument.RefusedBody;

import java.io.FilterInputStream;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * The body of a refused Commons HttpClient 3 method, discarded before the retry within
 * {@link RefusedBody}'s bounds. 3.x streams have no abort of their own: closing one reads it to its
 * end, for as long as the socket timeout allows (3.x's default: for ever). A body that does not end in
 * time is aborted here by closing the method's connection, which also ends a read blocked on it; the
 * method's {@code releaseConnection()} then gives the closed connection back, and the retry opens another.
 * {@code HttpMethod.abort()} would close it too, but marks the method aborted, and an aborted method
 * cannot be executed again.
 *
 * <p>The connection is {@code HttpMethodBase}'s private {@code responseConnection}, read by reflection
 * (3.1 is the last 3.x, so it will not move): the agent cannot name the client's types. A
 * method of another kind, or a field not found, leaves the body to be read to its end, as 3.x itself does.
 */
public final class RefusedMethodBody {

    private static final String METHOD_BASE = "org.apache.commons.httpclient.HttpMethodBase";
    private static final String CONNECTION = "org.apache.commons.httpclient.HttpConnection";

    private RefusedMethodBody() {
    }

    /** The body, with the abort {@link RefusedBody} calls by name. */
    public static final class Abortable extends FilterInputStream {

        private final Object method;

        Abortable(InputStream body, Object method) {
            super(body);
            this.method = method;
        }

        /** Closes the method's connection; any thread. */
        public void abort() throws ReflectiveOperationException {
            Object connection = connectionOf(method);
            Method close = connection == null ? null : publicClose(connection.getClass());
            if (close != null) {
                close.invoke(connection);
            }
        }
    }

    private static Object connectionOf(Object method) throws ReflectiveOperationException {
        for (Class<?> type = method.getClass(); type != null; type = type.getSuperclass()) {
            if (type.getName().equals(METHOD_BASE)) {
                Field field = type.getDeclaredField("responseConnection");
                field.setAccessible(true);
                return field.get(method);
            }
        }
        return null;
    }

    /** {@code HttpConnection.close()}, looked up on that public class: the pool hands out a private subclass. */
    private static Method publicClose(Class<?> type) throws NoSuchMethodException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(CONNECTION)) {
                return c.getMethod("close");
            }
        }
        return null;
    }
}
