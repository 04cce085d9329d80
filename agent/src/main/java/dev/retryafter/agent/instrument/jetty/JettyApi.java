package dev.retryafter.agent.instrument.jetty;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * A Jetty client's API as the shared core ({@link JettyExchanges}) uses it, reached by reflection through the class
 * loader of the request in hand (the agent's own loader cannot see it), with listeners made as proxies of its
 * interfaces. One shim per API: {@link Jetty12Api} ({@code org.eclipse.jetty.client}, Jetty 12) and
 * {@code jetty9to11.Jetty9to11Api} ({@code org.eclipse.jetty.client.api}, Jetty 9.4, 10 and 11). One per Jetty class loader.
 */
public abstract class JettyApi {

    protected static final String CLIENT = "org.eclipse.jetty.client.";

    protected final ClassLoader loader;
    /** How failures name the client: {@code "Jetty"}. */
    final String client;

    protected JettyApi(ClassLoader loader, String client) {
        this.loader = loader;
        this.client = client;
    }

    protected final Class<?> type(String name) throws ClassNotFoundException {
        return Class.forName(name, false, loader);
    }

    public final Object proxy(Class<?> type, InvocationHandler handler) {
        return Proxy.newProxyInstance(loader, new Class<?>[] {type}, handler);
    }

    /** The methods both APIs have under the same names, found by each shim's constructor on its own types. */
    protected Method getConversation;
    /** The conversation's {@code getAttribute(String)} and {@code setAttribute(String, Object)}. */
    protected Method getAttribute;
    protected Method setAttribute;
    protected Method send;
    protected Method onComplete;
    protected Method getAbortCause;
    protected Method getStatus;
    protected Method getHeaders;
    protected Method headerValue;
    protected Method fieldName;
    protected Method fieldValue;

    /** {@code Response.CompleteListener}. */
    protected abstract Class<?> completeListener();

    protected final Object conversation(Object request) throws Exception {
        return call(getConversation, request);
    }

    /** The attribute a conversation keeps the agent's call of its last exchange in. */
    private static final String CALL_ATTRIBUTE = "dev.retryafter.agent.call";

    /**
     * The call the conversation's last exchange took its turn as; null: none yet. Kept on the conversation itself,
     * not in a map keyed by it: Jetty 12's HttpConversation is equal to any other with the same attributes
     * (Attributes.Lazy), so two threads' fresh conversations would share a key and one end the other's turn.
     */
    final Object conversationCall(Object conversation) throws Exception {
        return call(getAttribute, conversation, CALL_ATTRIBUTE);
    }

    final void conversationCall(Object conversation, Object call) throws Exception {
        call(setAttribute, conversation, CALL_ATTRIBUTE, call);
    }

    final void send(Object request, Object listener) throws Exception {
        call(send, request, listener);
    }

    final void onComplete(Object request, Object listener) throws Exception {
        call(onComplete, request, listener);
    }

    /** A copy of {@code request} to send again in its conversation, or null when its body cannot be sent again. */
    protected abstract Object retryCopy(Object httpClient, Object request) throws Exception;

    final Throwable abortCause(Object request) throws Exception {
        return (Throwable) call(getAbortCause, request);
    }

    public final int status(Object response) throws Exception {
        return (Integer) call(getStatus, response);
    }

    protected final Object headers(Object response) throws Exception {
        return call(getHeaders, response);
    }

    protected final String header(Object headers, String name) throws Exception {
        return (String) call(headerValue, headers, name);
    }

    protected final String name(Object field) throws Exception {
        return (String) call(fieldName, field);
    }

    protected final String value(Object field) throws Exception {
        return (String) call(fieldValue, field);
    }

    /** The conversation's listeners as Jetty would have chosen them with no protocol handler: the application's. */
    protected abstract Object applicationListeners(Object conversation) throws Exception;

    protected abstract void notifyBegin(Object listeners, Object response) throws Exception;

    protected abstract void notifyHeader(Object listeners, Object response, Object field) throws Exception;

    protected abstract void notifyHeaders(Object listeners, Object response) throws Exception;

    /** Fails an exchange that never went out: {@code listener} (may be null) and the request's own response listeners hear it. */
    protected abstract void failUnsent(Object request, Object listener, Throwable failure) throws Exception;

    /** Fails a conversation after a refused exchange of it: its application listeners hear the failure. */
    protected abstract void failConversation(Object request, Object response, Throwable failure) throws Exception;

    /** A {@code Result}'s response and failure. */
    protected abstract Object responseOf(Object result) throws Exception;

    protected abstract Throwable failureOf(Object result) throws Exception;

    /** The content side of one refused exchange's listener. */
    protected abstract Content content();

    /**
     * A refused exchange's content events: read and dropped while the agent holds the exchange, passed to the
     * application's listeners once it is handed back ({@link #handingTo}). Any other method is the listener's own.
     */
    protected abstract static class Content {
        /** The exchange is handed to {@code listeners}, before they hear its beginning. */
        protected abstract void handingTo(Object listeners) throws Exception;

        protected abstract Object on(Object proxy, Method method, Object[] args) throws Exception;
    }

    protected static Object call(Method method, Object target, Object... args) throws Exception {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }
}
