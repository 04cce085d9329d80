package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.instrument.BlockingClient;
import dev.retryafter.agent.instrument.ClientMethod;

import java.io.InputStream;
import java.util.Collection;

/**
 * Commons HttpClient 3's side of the one blocking loop: the response is the {@code HttpMethod} itself, which the loop
 * runs again after a refusal, as 3.x does after a redirect or an authentication challenge. By reflection: the agent
 * cannot name the client's types.
 */
public final class CommonsHttp3Calls extends BlockingClient {

    private static final String DEFAULT_HEADERS = "http.default-headers"; // HostParams.DEFAULT_HEADERS
    private static final ClientMethod RELEASE = new ClientMethod("releaseConnection");
    private static final ClientMethod PARAMS = new ClientMethod("getParams");
    private static final ClientMethod PARAMETER = new ClientMethod("getParameter", "String");
    private static final ClientMethod REMOVE_HEADER = new ClientMethod("removeRequestHeader", "Header");

    public CommonsHttp3Calls() {
        // "abort": the Abortable the body is wrapped in closes the method's connection; 3.x streams have none of their own.
        super("commonshttp3", "getResponseHeaders", "getResponseHeader", new String[] {"getResponseBodyAsStream"}, "abort");
    }

    /** The body, with an abort that closes the method's connection ({@link RefusedMethodBody}); none: 3.x gave it back already. */
    @Override
    protected InputStream refusedBody(Object method) throws ReflectiveOperationException {
        InputStream body = super.refusedBody(method);
        return body == null ? null : new RefusedMethodBody.Abortable(body, method);
    }

    /**
     * Released, the same method can be executed again, as 3.x does after a redirect. Each run of {@code executeMethod}
     * adds the client's default headers to the method: the run to come adds them again, so they go now.
     */
    @Override
    protected void release(Object method) throws ReflectiveOperationException {
        RELEASE.call(method);
        try {
            Object defaults = PARAMETER.call(PARAMS.call(method), DEFAULT_HEADERS);
            if (defaults instanceof Collection) {
                for (Object header : (Collection<?>) defaults) {
                    REMOVE_HEADER.call(method, header);
                }
            }
        } catch (ReflectiveOperationException | RuntimeException kept) {
            // sent twice, as the client would send them on a method executed twice
        }
    }
}
