package dev.retryafter.agent.instrument.apache5;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * HttpClient 5 classic {@code InternalExecRuntime}, the holder of one exchange's pooled connection:
 * when it acquires one, and when it gives it back (released to the pool, or discarded). A governed
 * attempt keeps its permit until then, while the application reads the body. Inlined into the
 * client: calls to the bootstrap {@link AgentHooks} only.
 */
public final class ExecRuntimeAdvice {

    private ExecRuntimeAdvice() {
    }

    /** {@code acquireEndpoint}: only once it returned, with a connection. */
    public static final class Acquired {

        private Acquired() {
        }

        @Advice.OnMethodExit
        static void exit(@Advice.This Object runtime) {
            AgentHooks.connectionAcquired(runtime);
        }
    }

    /** {@code releaseEndpoint} and both {@code discardEndpoint}s: given back even if releasing threw. */
    public static final class Released {

        private Released() {
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object runtime) {
            AgentHooks.connectionReleased(runtime);
        }
    }
}
