package dev.retryafter.agent.instrument.okhttp2;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

import java.io.IOException;

/**
 * OkHttp 2's {@code Call.getResponse(Request, boolean)}: hands the call and its request over (the host is read from the
 * request, {@link OkHttp2Calls#begin}), then each attempt's response to the one blocking loop, and runs the body again,
 * with the same request, while it says so. Names no OkHttp type: the agent is built without OkHttp 2.
 */
public final class ResponseAdvice {

    private ResponseAdvice() {
    }

    /** A web socket's handshake is not governed: OkHttp 2 opens no body for it, so a refused one could not be let go. */
    @Advice.OnMethodEnter
    static Object enter(@Advice.This Object call, @Advice.Argument(0) Object request, @Advice.Argument(1) boolean forWebSocket)
            throws IOException {
        return forWebSocket ? null : AgentHooks.begin("okhttp2", new Object[] {call, request}, null, null, -1, true);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Return Object response, @Advice.Thrown Throwable thrown) throws IOException {
        return call != null && AgentHooks.respond("okhttp2", call, response, 0, thrown);
    }
}
