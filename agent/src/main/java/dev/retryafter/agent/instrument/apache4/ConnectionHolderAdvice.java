package dev.retryafter.agent.instrument.apache4;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;

/**
 * HttpClient 4 {@code ConnectionHolder}, made for each exchange with the connection it leased, on
 * the thread sending the request: when it is made, and when it gives its connection back (released
 * to the pool, closed or aborted). A governed attempt keeps its permit until then, while the
 * application reads the body. Inlined into a class file of version 50: calls only.
 */
public final class ConnectionHolderAdvice {

    private ConnectionHolderAdvice() {
    }

    /** The constructor: the holder has its connection. */
    public static final class Acquired {

        private Acquired() {
        }

        @Advice.OnMethodExit
        static void exit(@Advice.This Object holder) {
            AgentHooks.connectionAcquired(holder);
        }
    }

    /** {@code releaseConnection(boolean)} and {@code abortConnection()}, where every way of giving it back meets. */
    public static final class Released {

        private Released() {
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object holder) {
            AgentHooks.connectionReleased(holder);
        }
    }
}
