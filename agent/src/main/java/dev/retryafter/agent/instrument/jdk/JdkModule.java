package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.JavaVersion;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;
import dev.retryafter.agent.log.AgentLog;

/**
 * {@code java.net.http}'s HttpClient (Java 11 and later): its facade's {@code send} and {@code sendAsync}. Unlike the
 * rest of this package, Java 8 bytecode (agent/pom.xml): the list is read at start-up on every Java.
 */
public final class JdkModule implements ClientModule {

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("jdk.internal.net.http.HttpClientFacade")
                    .advise("send/2", "jdk.SendAdvice")
                    .advise("sendAsync/2 sendAsync/3", "jdk.SendAsyncAdvice")};
    }

    /** Its {@code JdkClientHooks}, loaded by name: they name {@code java.net.http} types. None before Java 11, which has none to govern. */
    @Override
    public Object[] hooks(ModuleContext context) {
        if (!JavaVersion.atLeast(11)) {
            return new Object[0];
        }
        try {
            Class<?> type = Class.forName("dev.retryafter.agent.instrument.jdk.JdkHooks", true, JdkModule.class.getClassLoader());
            return new Object[] {type.getConstructor(RetryEngine.class, CallDepth.class).newInstance(context.engine, context.depth)};
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            AgentLog.failure("loading the java.net.http hooks", e); // Apache stays governed
            return new Object[0];
        }
    }
}
