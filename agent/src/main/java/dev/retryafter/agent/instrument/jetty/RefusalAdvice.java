package dev.retryafter.agent.instrument.jetty;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;

/**
 * Jetty 12's {@code HttpClient.findProtocolHandler(Request, Response)}, asked at each response's
 * status line: a refusal of a governed request that no handler of Jetty's takes is the agent's. Its
 * handler's listener hears the exchange instead of the application's listeners, as Jetty's own
 * redirect and authentication handlers do, and either sends a copy of the request again or hands the
 * response back to them unchanged.
 */
public final class RefusalAdvice {

    private RefusalAdvice() {
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Argument(0) Request request, @Advice.Argument(1) Response response,
                     @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object handler) {
        if (handler == null && response.getStatus() >= AgentHooks.LOWEST_REFUSAL) {
            handler = AgentHooks.module("jetty.refusal", new Object[] {request, response, response.getStatus()});
        }
    }
}
