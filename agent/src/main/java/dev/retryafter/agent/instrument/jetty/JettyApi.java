package dev.retryafter.agent.instrument.jetty;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;

/**
 * Jetty 12's client, as the agent reaches it: by reflection on its public types, found through the
 * class loader of the request in hand (the agent's own loader cannot see them), and with listeners
 * and protocol handlers made as proxies of its interfaces. One per Jetty class loader.
 */
final class JettyApi {

    private static final String CLIENT = "org.eclipse.jetty.client.";

    final ClassLoader loader;
    final Class<?> responseListener;
    final Class<?> completeListener;
    final Class<?> protocolHandler;
    private final Method getConversation;
    private final Method getAttribute;
    private final Method setAttribute;
    private final Method copy;
    private final Method getURI;
    private final Method send;
    private final Method onComplete;
    private final Method getAbortCause;
    private final Method getBody;
    private final Method rewind;
    private final Method requestListeners;
    private final Method updateResponseListeners;
    private final Method conversationListeners;
    private final Method notifyBegin;
    private final Method notifyHeader;
    private final Method notifyHeaders;
    private final Method notifyContentSource;
    private final Method addCompleteListener;
    private final Method emitFailureComplete;
    private final Method getStatus;
    private final Method getHeaders;
    private final Method headerValue;
    private final Method fieldName;
    private final Method fieldValue;
    private final Constructor<?> newResponse;
    private final Constructor<?> newResult;
    /** {@code AsyncContentListener.onContentSource} and {@code ContentListener.onContent(Response, Chunk, Runnable)}: Jetty's own reading loop. */
    final Method readSource;
    final Method readChunk;
    private final Method invokeDefault;

    JettyApi(ClassLoader loader) throws ReflectiveOperationException {
        this.loader = loader;
        Class<?> request = type(CLIENT + "Request");
        Class<?> httpRequest = type(CLIENT + "transport.HttpRequest");
        Class<?> response = type(CLIENT + "Response");
        responseListener = type(CLIENT + "Response$Listener");
        completeListener = type(CLIENT + "Response$CompleteListener");
        protocolHandler = type(CLIENT + "ProtocolHandler");
        Class<?> conversation = type(CLIENT + "transport.HttpConversation");
        Class<?> listeners = type(CLIENT + "transport.ResponseListeners");
        Class<?> result = type(CLIENT + "Result");
        Class<?> field = type("org.eclipse.jetty.http.HttpField");
        Class<?> fields = type("org.eclipse.jetty.http.HttpFields");
        Class<?> source = type("org.eclipse.jetty.io.Content$Source");
        Class<?> chunk = type("org.eclipse.jetty.io.Content$Chunk");
        getConversation = httpRequest.getMethod("getConversation");
        getAttribute = conversation.getMethod("getAttribute", String.class);
        setAttribute = conversation.getMethod("setAttribute", String.class, Object.class);
        copy = httpRequest.getMethod("copy", URI.class);
        getURI = request.getMethod("getURI");
        send = request.getMethod("send", completeListener);
        onComplete = request.getMethod("onComplete", completeListener);
        getAbortCause = request.getMethod("getAbortCause");
        getBody = request.getMethod("getBody");
        rewind = source.getMethod("rewind");
        requestListeners = httpRequest.getMethod("getResponseListeners");
        updateResponseListeners = conversation.getMethod("updateResponseListeners", responseListener);
        conversationListeners = conversation.getMethod("getResponseListeners");
        notifyBegin = listeners.getMethod("notifyBegin", response);
        notifyHeader = listeners.getMethod("notifyHeader", response, field);
        notifyHeaders = listeners.getMethod("notifyHeaders", response);
        notifyContentSource = listeners.getMethod("notifyContentSource", response, source);
        addCompleteListener = listeners.getMethod("addCompleteListener", completeListener, boolean.class);
        emitFailureComplete = listeners.getMethod("emitFailureComplete", result);
        getStatus = response.getMethod("getStatus");
        getHeaders = response.getMethod("getHeaders");
        headerValue = fields.getMethod("get", String.class);
        fieldName = field.getMethod("getName");
        fieldValue = field.getMethod("getValue");
        newResponse = type(CLIENT + "transport.HttpResponse").getConstructor(request);
        newResult = result.getConstructor(request, Throwable.class, response, Throwable.class);
        readSource = type(CLIENT + "Response$AsyncContentListener").getMethod("onContentSource", response, source);
        readChunk = type(CLIENT + "Response$ContentListener").getMethod("onContent", response, chunk, Runnable.class);
        invokeDefault = InvocationHandler.class.getMethod("invokeDefault", Object.class, Method.class, Object[].class);
    }

    private Class<?> type(String name) throws ClassNotFoundException {
        return Class.forName(name, false, loader);
    }

    Object proxy(Class<?> type, InvocationHandler handler) {
        return Proxy.newProxyInstance(loader, new Class<?>[] {type}, handler);
    }

    Object conversation(Object request) throws Exception {
        return call(getConversation, request);
    }

    /** The attribute a conversation keeps the agent's call of its last exchange in. */
    private static final String CALL_ATTRIBUTE = "dev.retryafter.agent.call";

    /**
     * The call the conversation's last exchange took its turn as; null: none yet. Kept on the
     * conversation itself, not in a map: Jetty 12's HttpConversation is equal to any other with the
     * same attributes (Attributes.Lazy), so two fresh conversations of two threads would share a key.
     */
    Object conversationCall(Object conversation) throws Exception {
        return call(getAttribute, conversation, CALL_ATTRIBUTE);
    }

    void conversationCall(Object conversation, Object call) throws Exception {
        call(setAttribute, conversation, CALL_ATTRIBUTE, call);
    }

    Object copy(Object request) throws Exception {
        return call(copy, request, call(getURI, request));
    }

    void send(Object request, Object listener) throws Exception {
        call(send, request, listener);
    }

    void onComplete(Object request, Object listener) throws Exception {
        call(onComplete, request, listener);
    }

    /** Whether the request's body, if any, is back at its start to be sent again ({@code Content.Source.rewind}). */
    boolean rewound(Object request) throws Exception {
        Object body = call(getBody, request);
        return body == null || (Boolean) call(rewind, body);
    }

    Throwable abortCause(Object request) throws Exception {
        return (Throwable) call(getAbortCause, request);
    }

    int status(Object response) throws Exception {
        return (Integer) call(getStatus, response);
    }

    Object headers(Object response) throws Exception {
        return call(getHeaders, response);
    }

    String header(Object headers, String name) throws Exception {
        return (String) call(headerValue, headers, name);
    }

    String name(Object field) throws Exception {
        return (String) call(fieldName, field);
    }

    String value(Object field) throws Exception {
        return (String) call(fieldValue, field);
    }

    /** The conversation's listeners as Jetty would have chosen them with no protocol handler: the application's. */
    Object applicationListeners(Object conversation) throws Exception {
        call(updateResponseListeners, conversation, (Object) null);
        return call(conversationListeners, conversation);
    }

    void notifyBegin(Object listeners, Object response) throws Exception {
        call(notifyBegin, listeners, response);
    }

    void notifyHeader(Object listeners, Object response, Object field) throws Exception {
        call(notifyHeader, listeners, response, field);
    }

    void notifyHeaders(Object listeners, Object response) throws Exception {
        call(notifyHeaders, listeners, response);
    }

    void notifyContentSource(Object listeners, Object response, Object source) throws Exception {
        call(notifyContentSource, listeners, response, source);
    }

    /** Fails an exchange that never went out: {@code listener} (may be null) and the request's own response listeners hear it. */
    void failUnsent(Object request, Object listener, Throwable failure) throws Exception {
        Object listeners = call(requestListeners, request);
        if (listener != null) {
            call(addCompleteListener, listeners, listener, true);
        }
        failWith(listeners, request, newResponse.newInstance(request), failure);
    }

    /** Fails a conversation after a refused exchange of it: its application listeners hear the failure. */
    void failConversation(Object request, Object response, Throwable failure) throws Exception {
        failWith(applicationListeners(conversation(request)), request, response, failure);
    }

    private void failWith(Object listeners, Object request, Object response, Throwable failure) throws Exception {
        call(emitFailureComplete, listeners, newResult.newInstance(request, failure, response, failure));
    }

    /** A default method of a listener interface, run on {@code proxy}. */
    Object invokeDefault(Object proxy, Method method, Object[] args) throws Exception {
        return call(invokeDefault, null, proxy, method, args);
    }

    private static Object call(Method method, Object target, Object... args) throws Exception {
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
