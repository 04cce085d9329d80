package dev.retryafter.agent.instrument.okhttp2;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.instrument.BlockingClient;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.CancellableCalls;
import dev.retryafter.agent.instrument.ClientMethod;
import dev.retryafter.agent.instrument.ModuleHooks;

import java.io.IOException;

/**
 * OkHttp 2's side of the agent, by reflection: the host of a call's request, its responses read for the one blocking
 * loop, a refusal's body closed before the retry, and a call's cancel ending its wait. A refusal of an enqueued call is
 * waited out on the dispatcher thread that runs it, as OkHttp 2 runs its own follow-ups there.
 */
public class OkHttp2Calls extends BlockingClient implements ModuleHooks {

    /** A call was cancelled: the call. */
    static final String CANCEL = "okhttp2.cancel";

    /** {@code Request.url()}, a {@code java.net.URL} in every 2.x ({@code httpUrl()} came in 2.4). */
    private static final ClientMethod URL = new ClientMethod("url");
    private static final ClientMethod CODE = new ClientMethod("code");
    /** {@code Request.body()} and {@code Response.body()} alike. */
    private static final ClientMethod BODY = new ClientMethod("body");
    /**
     * The bodies {@code RequestBody.create} makes (of a string, bytes, a {@code ByteString}, a file; a form's too), which
     * OkHttp 2 can write again, named after the request's own package (a relocated copy's). A multipart's parts may be
     * anyone's, and any other body may stream once.
     */
    private static final String OWN_BODIES = "RequestBody$";

    /** Each governed call's engine call, for its cancel to end its wait. */
    final CancellableCalls cancels = new CancellableCalls("isCanceled");

    public OkHttp2Calls() {
        this("okhttp2");
    }

    /** For a client whose advice says {@code name} and whose responses are OkHttp 2's. */
    OkHttp2Calls(String name) {
        super(name, null, "header", new String[0], null); // closing the body discards the rest of it
    }

    /** {@code exchange}: the OkHttp call and its request, whose URL names the host. */
    @Override
    public Call begin(BlockingRetryLoop loop, Object exchange, String scheme, String host, int port, boolean replayable,
                      boolean governNew) throws IOException {
        if (!governNew || !(exchange instanceof Object[])) {
            return null;
        }
        Object okCall = ((Object[]) exchange)[0];
        Object request = ((Object[]) exchange)[1];
        try {
            java.net.URL url = (java.net.URL) URL.call(request);
            Object body = BODY.call(request);
            // OkHttp 2 has no one-shot mark: a body of the application's own class may stream once, and is never sent twice.
            String requestClass = request.getClass().getName();
            boolean again = body == null || body.getClass().getName().startsWith(
                    requestClass.substring(0, requestClass.lastIndexOf('.') + 1) + OWN_BODIES);
            int urlPort = url.getPort() >= 0 ? url.getPort() : url.getDefaultPort();
            return loop.begin(url.getProtocol(), url.getHost(), urlPort, again, cancels, okCall);
        } catch (ReflectiveOperationException | RuntimeException unusable) {
            AgentLog.failure("reading an OkHttp 2 request", unusable);
            return null; // a request OkHttp fails on, or sends, as it would without the agent
        }
    }

    /** The advice names no OkHttp type, so the status is read here. */
    @Override
    public boolean respond(BlockingRetryLoop loop, Object call, Object answer, Object body, int status, Throwable thrown)
            throws IOException {
        Object response = null;
        int code = 0; // none read: an attempt that failed, whose response goes to the application as it is
        if (answer != null) {
            try {
                response = responseOf(answer);
                code = (Integer) CODE.call(response);
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.failure("reading an OkHttp 2 response", e);
            }
        }
        return super.respond(loop, call, response, body, code, thrown);
    }

    /** The response in what the advice answered: here, the response itself. */
    Object responseOf(Object answer) throws ReflectiveOperationException {
        return answer;
    }

    @Override
    public String[] hooks() {
        return new String[] {CANCEL};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        cancels.cancelled(a[0]);
        return null;
    }

    @Override
    protected void offerHeaders(Object response, Call call) throws ReflectiveOperationException {
        offerIndexedHeaders(response, call);
    }

    /** OkHttp 2's response is not {@code Closeable}; its body is, and closing it gives the connection back. */
    @Override
    protected void release(Object response) throws ReflectiveOperationException {
        close(BODY.call(response));
    }
}
