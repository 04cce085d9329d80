package dev.retryafter.agent.instrument.commonshttp3;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

import java.io.IOException;

/**
 * Commons HttpClient 3 {@code HttpClient.executeMethod(HostConfiguration, HttpMethod, HttpState)}, which every other
 * overload calls: hands the call over (its adapter, {@link CommonsHttp3Calls}, finds the host), then each attempt's
 * method to the one blocking loop, and runs the body again, with the same method, while it says so ({@code repeatOn}).
 */
public final class ExecuteAdvice {

    private ExecuteAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.This Object client, @Advice.Argument(0) Object target, @Advice.Argument(1) Object method)
            throws IOException {
        return AgentHooks.begin("commonshttp3", new Object[] {client, target, method}, null, null, -1, false);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Argument(1) Object method, @Advice.Return int status,
                        @Advice.Thrown Throwable thrown) throws IOException {
        return call != null && AgentHooks.respond("commonshttp3", call, method, status, thrown);
    }
}
