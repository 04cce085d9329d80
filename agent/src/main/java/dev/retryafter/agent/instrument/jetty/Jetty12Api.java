package dev.retryafter.agent.instrument.jetty;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.net.URI;

/**
 * Jetty 12's client ({@code org.eclipse.jetty.client}), as the shared core reaches it ({@link JettyApi}): its
 * protocol handlers too are proxies of its interfaces.
 */
final class Jetty12Api extends JettyApi {

    final Class<?> protocolHandler;
    private final Method copy;
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
    private final Constructor<?> newResponse;
    private final Constructor<?> newResult;
    /** {@code AsyncContentListener.onContentSource} and {@code ContentListener.onContent(Response, Chunk, Runnable)}: Jetty's own reading loop. */
    final Method readSource;
    final Method readChunk;
    private final Method invokeDefault;

    Jetty12Api(ClassLoader loader, String root) throws ReflectiveOperationException {
        super(loader, root, "Jetty", "", "transport.");
        protocolHandler = clientType("ProtocolHandler");
        Class<?> listeners = clientType("transport.ResponseListeners");
        Class<?> source = type("io.Content$Source");
        copy = httpRequest.getMethod("copy", URI.class);
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
        newResponse = clientType("transport.HttpResponse").getConstructor(request);
        newResult = result.getConstructor(request, Throwable.class, response, Throwable.class);
        readSource = clientType("Response$AsyncContentListener").getMethod("onContentSource", response, source);
        readChunk = clientType("Response$ContentListener").getMethod("onContent", response, type("io.Content$Chunk"), Runnable.class);
        invokeDefault = InvocationHandler.class.getMethod("invokeDefault", Object.class, Method.class, Object[].class);
    }

    Object copy(Object request) throws Exception {
        return call(copy, request, call(getURI, request));
    }

    /** Whether the request's body, if any, is back at its start to be sent again ({@code Content.Source.rewind}). */
    boolean rewound(Object request) throws Exception {
        Object body = call(getBody, request);
        return body == null || (Boolean) call(rewind, body);
    }

    /** The conversation's listeners as Jetty would have chosen them with no protocol handler: the application's. */
    @Override
    protected Object applicationListeners(Object conversation) throws Exception {
        call(updateResponseListeners, conversation, (Object) null);
        return call(conversationListeners, conversation);
    }

    @Override
    protected void notifyBegin(Object listeners, Object response) throws Exception {
        call(notifyBegin, listeners, response);
    }

    @Override
    protected void notifyHeader(Object listeners, Object response, Object field) throws Exception {
        call(notifyHeader, listeners, response, field);
    }

    @Override
    protected void notifyHeaders(Object listeners, Object response) throws Exception {
        call(notifyHeaders, listeners, response);
    }

    void notifyContentSource(Object listeners, Object response, Object source) throws Exception {
        call(notifyContentSource, listeners, response, source);
    }

    /** Fails an exchange that never went out: {@code listener} (may be null) and the request's own response listeners hear it. */
    @Override
    protected void failUnsent(Object request, Object listener, Throwable failure) throws Exception {
        Object listeners = call(requestListeners, request);
        if (listener != null) {
            call(addCompleteListener, listeners, listener, true);
        }
        failWith(listeners, request, newResponse.newInstance(request), failure);
    }

    /** Fails a conversation after a refused exchange of it: its application listeners hear the failure. */
    @Override
    protected void failConversation(Object request, Object response, Throwable failure) throws Exception {
        failWith(applicationListeners(conversation(request)), request, response != null ? response : newResponse.newInstance(request), failure);
    }

    private void failWith(Object listeners, Object request, Object response, Throwable failure) throws Exception {
        call(emitFailureComplete, listeners, newResult.newInstance(request, failure, response, failure));
    }

    /** A default method of a listener interface, run on {@code proxy}. */
    Object invokeDefault(Object proxy, Method method, Object[] args) throws Exception {
        return call(invokeDefault, null, proxy, method, args);
    }

    @Override
    protected Object retryCopy(Object httpClient, Object request) throws Exception {
        return rewound(request) ? copy(request) : null;
    }

    @Override
    protected Content content() {
        return new SourceContent();
    }

    /** Content as Jetty 12 reads it: a source Jetty's own loop reads, chunk by chunk, into {@code onContent}; dropped. */
    private final class SourceContent extends Content {
        private volatile Object handedTo;

        @Override
        protected void handingTo(Object listeners) {
            handedTo = listeners;
        }

        @Override
        protected Object on(Object proxy, Method method, Object[] args) throws Exception {
            switch (method.getName()) {
                case "onContentSource":
                    Object to = handedTo;
                    if (to != null) {
                        notifyContentSource(to, args[0], args[1]);
                        return null;
                    }
                    return invokeDefault(proxy, readSource, args); // Jetty's loop, into onContent below
                case "onContent":
                    return args.length == 3 ? invokeDefault(proxy, readChunk, args) : null; // dropped
                default:
                    return JettyExchanges.objectMethod(proxy, method, args);
            }
        }
    }
}
