package dev.retryafter.agent.instrument.jetty9to11;

import dev.retryafter.agent.instrument.jetty.JettyApi;
import dev.retryafter.agent.instrument.jetty.JettyExchanges;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.function.ObjLongConsumer;

/**
 * Jetty 9.4, 10 and 11's client ({@code org.eclipse.jetty.client} with its API in {@code .api}), as the agent reaches
 * it: by reflection, through the class loader of the request in hand, and with listeners as proxies of its
 * interfaces. One per Jetty class loader. The three differ here in one place: a request's body is a
 * {@code ContentProvider} ({@code getContent}) in 9.4 and a {@code Request.Content} ({@code getBody}) in 10 and 11;
 * both say {@code isReproducible()}.
 */
final class Jetty9to11Api extends JettyApi {

    private final Class<?> demandedContentListener;
    private final Method getRequestHeaders;
    private final Method getScheme;
    private final Method getHost;
    private final Method getPort;
    /** {@code getBody} in 10 and 11, else {@code getContent}; the body's {@code isReproducible}, found at first use. */
    private final Method getBody;
    private volatile Method isReproducible;
    private final Method requestListeners;
    private final Method copyRequest;
    private final Method updateResponseListeners;
    private final Method conversationListeners;
    private final Object notifier;
    private final Method notifyBegin;
    private final Method notifyHeader;
    private final Method notifyHeaders;
    private final Method notifyBeforeContent;
    private final Method notifyContent;
    private final Method forwardFailureComplete;
    private final Method fieldsSize;
    private final Method succeeded;
    private final Constructor<?> newResponse;

    Jetty9to11Api(ClassLoader loader, String root) throws ReflectiveOperationException {
        super(loader, root, "Jetty 9.4-11", "api.", "");
        demandedContentListener = clientType("api.Response$DemandedContentListener");
        Class<?> notifierType = clientType("ResponseNotifier");
        Class<?> callback = type("util.Callback");
        getRequestHeaders = request.getMethod("getHeaders");
        getScheme = request.getMethod("getScheme");
        getHost = request.getMethod("getHost");
        getPort = request.getMethod("getPort");
        Method body;
        try {
            body = request.getMethod("getBody");
        } catch (NoSuchMethodException nine) {
            body = request.getMethod("getContent");
        }
        getBody = body;
        requestListeners = httpRequest.getDeclaredMethod("getResponseListeners");
        requestListeners.setAccessible(true); // protected
        copyRequest = clientType("HttpClient").getDeclaredMethod("copyRequest", httpRequest, URI.class);
        copyRequest.setAccessible(true); // protected: what Jetty's own redirects use
        updateResponseListeners = conversation.getMethod("updateResponseListeners", clientType("api.Response$ResponseListener"));
        conversationListeners = conversation.getMethod("getResponseListeners");
        notifier = notifierType.getConstructor().newInstance();
        notifyBegin = notifierType.getMethod("notifyBegin", List.class, response);
        notifyHeader = notifierType.getMethod("notifyHeader", List.class, response, field);
        notifyHeaders = notifierType.getMethod("notifyHeaders", List.class, response);
        notifyBeforeContent = notifierType.getMethod("notifyBeforeContent", response, ObjLongConsumer.class, List.class);
        notifyContent = notifierType.getMethod("notifyContent", response, ObjLongConsumer.class, ByteBuffer.class, callback, List.class);
        forwardFailureComplete = notifierType.getMethod("forwardFailureComplete", List.class, request, Throwable.class, response, Throwable.class);
        fieldsSize = type("http.HttpFields").getMethod("size");
        succeeded = callback.getMethod("succeeded");
        newResponse = clientType("HttpResponse").getConstructor(request, List.class);
    }

    /**
     * A copy of {@code request} for the same URI, in its conversation, as Jetty's redirects copy one; with the headers
     * such a copy leaves out for a new URI (authorization, cookies set by hand) put back: it is the same request again.
     */
    Object copy(Object client, Object request) throws Exception {
        Object copy = call(copyRequest, client, request, call(getURI, request));
        Object copyHeaders = call(getRequestHeaders, copy);
        java.util.Set<String> leftOut = new java.util.HashSet<>();
        for (Object field : (Iterable<?>) call(getRequestHeaders, request)) {
            String name = name(field);
            if (!name.equalsIgnoreCase("Expect") && header(copyHeaders, name) == null) {
                leftOut.add(name);
            }
        }
        if (!leftOut.isEmpty()) {
            Method add = copy.getClass().getMethod("header", String.class, String.class);
            for (Object field : (Iterable<?>) call(getRequestHeaders, request)) {
                if (leftOut.contains(name(field))) {
                    call(add, copy, name(field), value(field));
                }
            }
        }
        return copy;
    }

    String scheme(Object request) throws Exception {
        return (String) call(getScheme, request);
    }

    String host(Object request) throws Exception {
        return (String) call(getHost, request);
    }

    int port(Object request) throws Exception {
        return (Integer) call(getPort, request);
    }

    /** Whether the request's body, if any, can be read again from its start ({@code isReproducible}). */
    boolean reproducible(Object request) throws Exception {
        Object body = call(getBody, request);
        if (body == null) {
            return true;
        }
        Method reproducible = isReproducible;
        if (reproducible == null) {
            reproducible = getBody.getReturnType().getMethod("isReproducible");
            isReproducible = reproducible;
        }
        return (Boolean) call(reproducible, body);
    }

    boolean expectsContinue(Object request) throws Exception {
        String expect = header(call(getRequestHeaders, request), "Expect");
        return expect != null && expect.toLowerCase(java.util.Locale.ROOT).contains("100-continue");
    }

    int headerCount(Object response) throws Exception {
        return (Integer) call(fieldsSize, headers(response));
    }

    void succeeded(Object callback) throws Exception {
        call(succeeded, callback);
    }

    /** The conversation's listeners as Jetty would have chosen them with no protocol handler: the application's. */
    @Override
    protected Object applicationListeners(Object conversation) throws Exception {
        call(updateResponseListeners, conversation, (Object) null);
        return (List<?>) call(conversationListeners, conversation);
    }

    /** Those of {@code listeners} that take content, as Jetty's receiver picks them. */
    List<Object> contentListeners(List<?> listeners) {
        List<Object> content = new ArrayList<>();
        for (Object listener : listeners) {
            if (demandedContentListener.isInstance(listener)) {
                content.add(listener);
            }
        }
        return content;
    }

    @Override
    protected void notifyBegin(Object listeners, Object response) throws Exception {
        call(notifyBegin, notifier, listeners, response);
    }

    @Override
    protected void notifyHeader(Object listeners, Object response, Object field) throws Exception {
        call(notifyHeader, notifier, listeners, response, field);
    }

    @Override
    protected void notifyHeaders(Object listeners, Object response) throws Exception {
        call(notifyHeaders, notifier, listeners, response);
    }

    void notifyBeforeContent(Object response, ObjLongConsumer<Object> demand, List<Object> contentListeners) throws Exception {
        call(notifyBeforeContent, notifier, response, demand, contentListeners);
    }

    void notifyContent(Object response, ObjLongConsumer<Object> demand, ByteBuffer buffer, Object callback, List<Object> contentListeners)
            throws Exception {
        call(notifyContent, notifier, response, demand, buffer, callback, contentListeners);
    }

    /** Fails an exchange that never went out: {@code listener} (may be null) and the request's own response listeners hear it. */
    @Override
    protected void failUnsent(Object request, Object listener, Throwable failure) throws Exception {
        List<Object> listeners = new ArrayList<>((List<?>) call(requestListeners, request));
        if (listener != null) {
            listeners.add(listener);
        }
        call(forwardFailureComplete, notifier, listeners, request, failure, newResponse.newInstance(request, listeners), failure);
    }

    /** Fails a conversation after a refused exchange of it: its application listeners hear the failure. */
    @Override
    protected void failConversation(Object request, Object response, Throwable failure) throws Exception {
        List<?> listeners = (List<?>) applicationListeners(conversation(request));
        call(forwardFailureComplete, notifier, listeners, request, failure,
                response != null ? response : newResponse.newInstance(request, listeners), failure);
    }

    @Override
    protected Object retryCopy(Object httpClient, Object request) throws Exception {
        return reproducible(request) ? copy(httpClient, request) : null;
    }

    @Override
    protected Content content() {
        return new DemandedContent();
    }

    /**
     * Content as 9.4-11 hand it over: buffers with a callback and demand. Dropped, and more asked for, while the agent
     * holds the exchange; once handed back, passed to the application's content listeners with their demand.
     */
    private final class DemandedContent extends Content {
        private volatile List<Object> handedContent;
        private volatile Demand demand;

        @Override
        protected void handingTo(Object listeners) {
            List<Object> content = contentListeners((List<?>) listeners);
            demand = new Demand(content.size());
            handedContent = content; // last: once set, content events go to the application's listeners
        }

        @Override
        protected Object on(Object proxy, Method method, Object[] args) throws Exception {
            List<Object> handed = handedContent;
            switch (method.getName()) {
                case "onBeforeContent":
                    if (handed != null && !handed.isEmpty()) {
                        notifyBeforeContent(args[0], demand.from((LongConsumer) args[1]), handed);
                    } else {
                        ((LongConsumer) args[1]).accept(1);
                    }
                    return null;
                case "onContent":
                    if (args.length == 4) { // (response, demand, buffer, callback): what Jetty's receiver calls
                        if (handed != null) {
                            notifyContent(args[0], demand.from((LongConsumer) args[1]), (ByteBuffer) args[2], args[3], handed);
                        } else {
                            ByteBuffer dropped = (ByteBuffer) args[2];
                            dropped.position(dropped.limit());
                            succeeded(args[3]);
                            ((LongConsumer) args[1]).accept(1);
                        }
                    } else if (args.length == 3) {
                        ByteBuffer dropped = (ByteBuffer) args[1];
                        dropped.position(dropped.limit());
                        succeeded(args[2]);
                    }
                    return null;
                default:
                    return JettyExchanges.objectMethod(proxy, method, args);
            }
        }
    }
}
