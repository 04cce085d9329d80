package dev.retryafter.agent.instrument.okhttp2;

import dev.retryafter.agent.bootstrap.AgentHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

import java.io.IOException;

/**
 * The {@code HttpURLConnection} of OkHttp 2's {@code OkUrlFactory}: its private {@code getResponse()}, which sends the
 * request through OkHttp's engine, with its redirects and authentication, and which every read of the response calls
 * again. Hands a connection yet to send over ({@link OkUrlFactoryConnections#begin}), then the engine answered to the one
 * blocking loop; to send again, the engine is let go, and the method builds the next from the
 * connection, as at first. Names no OkHttp type.
 */
public final class UrlConnectionAdvice {

    private UrlConnectionAdvice() {
    }

    /** A connection with an engine already (a later read, or connected first) or a failure is left as OkHttp runs it. */
    @Advice.OnMethodEnter
    static Object enter(@Advice.This Object connection, @Advice.FieldValue("httpEngine") Object engine,
                        @Advice.FieldValue("httpEngineFailure") Object failure) throws IOException {
        return engine != null || failure != null ? null : AgentHooks.begin("okhttp2.urlconnection", connection, null, null, -1, true);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, repeatOn = Advice.OnNonDefaultValue.class)
    static boolean exit(@Advice.Enter Object call, @Advice.Return Object engine, @Advice.Thrown Throwable thrown,
                        @Advice.FieldValue(value = "httpEngine", readOnly = false, typing = Assigner.Typing.DYNAMIC) Object current,
                        @Advice.FieldValue(value = "httpEngineFailure", readOnly = false, typing = Assigner.Typing.DYNAMIC) Object failure)
            throws IOException {
        if (call == null) {
            return false;
        }
        try {
            if (!AgentHooks.respond("okhttp2.urlconnection", call, engine, 0, thrown)) {
                return false;
            }
        } catch (IOException ended) {
            // Held, interrupted or disconnected while waiting to send again, the refusal's body already closed: the
            // connection fails from now on as OkHttp fails one whose engine broke, at every read.
            current = null;
            failure = ended;
            throw ended;
        }
        current = null;
        return true;
    }
}
