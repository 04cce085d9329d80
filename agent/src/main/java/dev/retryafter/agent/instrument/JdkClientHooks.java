package dev.retryafter.agent.instrument;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.RetryEngine;

import java.io.IOException;
import java.lang.reflect.Constructor;

/**
 * The {@code java.net.http} side of the hooks, behind a Java 8 interface: its implementation is built
 * for Java 11 and names {@code java.net.http} types, so it is loaded only where they exist.
 */
public interface JdkClientHooks {

    /** {@code HttpClient.send}: the final response, or null to run the original method. */
    Object send(Object client, Object request, Object bodyHandler) throws IOException, InterruptedException;

    /** {@code HttpClient.sendAsync}: a future of the final response, or null to run the original. */
    Object sendAsync(Object client, Object request, Object bodyHandler, Object pushPromiseHandler);

    /** The hooks for {@code java.net.http}, or null before Java 11, which has none to govern. */
    static JdkClientHooks create(RetryEngine engine, CallDepth depth) {
        if (!JavaVersion.atLeast(11)) {
            return null;
        }
        try {
            Class<?> type = Class.forName("dev.retryafter.agent.instrument.jdk.JdkHooks", true,
                    JdkClientHooks.class.getClassLoader());
            Constructor<?> constructor = type.getConstructor(RetryEngine.class, CallDepth.class);
            return (JdkClientHooks) constructor.newInstance(engine, depth);
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            AgentLog.failure("loading the java.net.http hooks", e); // Apache stays governed
            return null;
        }
    }
}
