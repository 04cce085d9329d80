package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code Transmitter.cancel()}, OkHttp 3.14's: its call timeout cancels the call here, not through the call's own
 * {@code cancel()} ({@link CancelAdvice}), and so is heard here too.
 */
public final class TransmitterCancelAdvice {

    private TransmitterCancelAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.FieldValue("call") Object call) {
        AgentHooks.module("okhttp.cancel", new Object[] {call});
    }
}
