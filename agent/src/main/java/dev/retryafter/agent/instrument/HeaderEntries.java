package dev.retryafter.agent.instrument;

import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;

import java.util.Map;

/** A response's headers as name and value pairs ({@code Map.Entry}s: Netty's {@code HttpHeaders}, Vert.x's {@code MultiMap}). */
public final class HeaderEntries {

    private HeaderEntries() {
    }

    /** The call's decision on a response: its headers offered where the call wants them; true to discard it and send again. */
    public static boolean decide(Call call, int status, Iterable<?> headers) {
        boolean offer = call.wantsHeaders(status);
        String retryAfter = null;
        if (offer || status >= AgentHooks.LOWEST_REFUSAL) {
            for (Object entry : headers) {
                Map.Entry<?, ?> header = (Map.Entry<?, ?>) entry;
                String name = String.valueOf(header.getKey());
                String value = String.valueOf(header.getValue());
                if (offer) {
                    call.offerHeader(name, value);
                }
                if (retryAfter == null && name.equalsIgnoreCase("Retry-After")) {
                    retryAfter = value;
                }
            }
        }
        return call.onResponse(status, status >= AgentHooks.LOWEST_REFUSAL ? retryAfter : null);
    }
}
