package dev.retryafter.agent.instrument.jetty;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Deque;
import java.util.concurrent.Executor;

/**
 * A Jetty client's API as the shared core ({@link JettyExchanges}) uses it, reached by reflection through the class
 * loader of the request in hand (the agent's own loader cannot see it), with listeners made as proxies of its
 * interfaces. One shim per API: {@link Jetty12Api} ({@code org.eclipse.jetty.client}, Jetty 12) and
 * {@code jetty9to11.Jetty9to11Api} ({@code org.eclipse.jetty.client.api}, Jetty 9.4, 10 and 11). One per copy of Jetty:
 * its class loader, and its root package, which a fat jar may have relocated ({@code shaded.org.eclipse.jetty.}).
 */
public abstract class JettyApi {

    protected final ClassLoader loader;
    /** Jetty's root package in this copy: {@code "org.eclipse.jetty."}, or where a fat jar relocated it. */
    private final String root;
    /** How failures name the client: {@code "Jetty"}. */
    final String client;
    /** The client's types both APIs have, each in its own package. */
    protected final Class<?> request;
    protected final Class<?> httpRequest;
    protected final Class<?> response;
    protected final Class<?> conversation;
    protected final Class<?> completeListener;
    /** {@code Response.Listener}: what takes a governed refusal's exchange. */
    final Class<?> responseListener;
    protected final Class<?> result;
    protected final Class<?> field;
    private final Method getConversation;
    /** The conversation's {@code getAttribute(String)} and {@code setAttribute(String, Object)}. */
    private final Method getAttribute;
    private final Method setAttribute;
    private final Method getExchanges;
    private final Method exchangeRequest;
    private final Method exchangeResponse;
    protected final Method getURI;
    private final Method send;
    private final Method onComplete;
    private final Method getAbortCause;
    private final Method abort;
    private final Method getStatus;
    private final Method getHeaders;
    private final Method headerValue;
    private final Method fieldName;
    private final Method fieldValue;
    private final Method getResponse;
    private final Method getFailure;
    private final Method getExecutor;

    /**
     * Finds what both APIs name alike: {@code api} is the package of the client's interfaces below {@code client.}
     * ({@code ""} in 12, {@code "api."} before), {@code impl} that of their implementations ({@code "transport."} in 12,
     * {@code ""} before).
     */
    protected JettyApi(ClassLoader loader, String root, String client, String api, String impl) throws ReflectiveOperationException {
        this.loader = loader;
        this.root = root;
        this.client = client;
        request = clientType(api + "Request");
        httpRequest = clientType(impl + "HttpRequest");
        response = clientType(api + "Response");
        conversation = clientType(impl + "HttpConversation");
        completeListener = clientType(api + "Response$CompleteListener");
        responseListener = clientType(api + "Response$Listener");
        result = clientType(api + "Result");
        Class<?> exchange = clientType(impl + "HttpExchange");
        field = type("http.HttpField");
        getConversation = httpRequest.getMethod("getConversation");
        getAttribute = conversation.getMethod("getAttribute", String.class);
        setAttribute = conversation.getMethod("setAttribute", String.class, Object.class);
        getExchanges = conversation.getMethod("getExchanges");
        exchangeRequest = exchange.getMethod("getRequest");
        exchangeResponse = exchange.getMethod("getResponse");
        getURI = request.getMethod("getURI");
        send = request.getMethod("send", completeListener);
        onComplete = request.getMethod("onComplete", completeListener);
        getAbortCause = request.getMethod("getAbortCause");
        abort = request.getMethod("abort", Throwable.class);
        getStatus = response.getMethod("getStatus");
        getHeaders = response.getMethod("getHeaders");
        headerValue = type("http.HttpFields").getMethod("get", String.class);
        fieldName = field.getMethod("getName");
        fieldValue = field.getMethod("getValue");
        getResponse = result.getMethod("getResponse");
        getFailure = result.getMethod("getFailure");
        getExecutor = clientType("HttpClient").getMethod("getExecutor");
    }

    /** The class {@code name} below Jetty's root package: {@code "http.HttpField"}. */
    protected final Class<?> type(String name) throws ClassNotFoundException {
        return Class.forName(root + name, false, loader);
    }

    protected final Class<?> clientType(String name) throws ClassNotFoundException {
        return type("client." + name);
    }

    public final Class<?> responseListener() {
        return responseListener;
    }

    public final Object proxy(Class<?> type, InvocationHandler handler) {
        return Proxy.newProxyInstance(loader, new Class<?>[] {type}, handler);
    }

    protected final Object conversation(Object request) throws Exception {
        return call(getConversation, request);
    }

    /** The attribute a conversation keeps the agent's governed request of its last exchange in. */
    private static final String UNDER_WAY = "dev.retryafter.agent.call";

    /**
     * The governed request the conversation's last exchange took its turn as; null: none yet. Kept on the conversation
     * itself, not in a map keyed by it: Jetty 12's HttpConversation is equal to any other with the same attributes
     * (Attributes.Lazy), so two threads' fresh conversations would share a key and one end the other's turn.
     */
    final Object underWay(Object conversation) throws Exception {
        return call(getAttribute, conversation, UNDER_WAY);
    }

    final void underWay(Object conversation, Object governed) throws Exception {
        call(setAttribute, conversation, UNDER_WAY, governed);
    }

    /** The exchange under way in {@code conversation}: its {@code {request, response}}, or null before the first. */
    public final Object[] lastExchange(Object conversation) throws Exception {
        Object last = ((Deque<?>) call(getExchanges, conversation)).peekLast();
        return last == null ? null : new Object[] {call(exchangeRequest, last), call(exchangeResponse, last)};
    }

    final Executor executor(Object httpClient) throws Exception {
        return httpClient == null ? null : (Executor) call(getExecutor, httpClient);
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

    final void abort(Object request, Throwable cause) throws Exception {
        call(abort, request, cause);
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
    final Object responseOf(Object result) throws Exception {
        return call(getResponse, result);
    }

    final Throwable failureOf(Object result) throws Exception {
        return (Throwable) call(getFailure, result);
    }

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
