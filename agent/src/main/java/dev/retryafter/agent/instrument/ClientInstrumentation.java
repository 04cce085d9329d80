package dev.retryafter.agent.instrument;

import dev.retryafter.agent.AgentLog;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

import java.lang.instrument.Instrumentation;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * Which classes the agent changes, and with which advice. Types are matched by name only: a type
 * hierarchy walk for every class loaded would cost the application start-up time.
 */
public final class ClientInstrumentation {

    static final String JDK_FACADE = "jdk.internal.net.http.HttpClientFacade";
    static final String[] APACHE5_CLIENTS = {
            "org.apache.hc.client5.http.impl.classic.InternalHttpClient",
            "org.apache.hc.client5.http.impl.classic.MinimalHttpClient"};
    static final String APACHE5_RETRY_EXEC = "org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec";
    static final String[] APACHE4_CLIENTS = {
            "org.apache.http.impl.client.InternalHttpClient",
            "org.apache.http.impl.client.MinimalHttpClient",
            "org.apache.http.impl.client.AbstractHttpClient"};
    static final String[] APACHE4_RETRY_HOLDERS = {
            "org.apache.http.impl.execchain.ServiceUnavailableRetryExec",
            "org.apache.http.impl.client.AutoRetryHttpClient"};

    private ClientInstrumentation() {
    }

    public static ResettableClassFileTransformer install(Instrumentation instrumentation, ClassLoader agentLoader) {
        AgentBuilder.Transformer.ForAdvice advice = new AgentBuilder.Transformer.ForAdvice().include(agentLoader);
        return new AgentBuilder.Default()
                .disableClassFormatChanges()
                // Retransformation: attached to a running JVM, the clients may already be loaded.
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(new FailureListener())
                // Byte Buddy's default ignores the platform class loader, which defines java.net.http:
                // with it, nothing would be transformed and nothing would say so.
                .ignore(nameStartsWith("dev.retryafter.agent."))
                .type(named(JDK_FACADE))
                .transform(advice
                        .advice(named("send").and(takesArguments(2)), "dev.retryafter.agent.instrument.jdk.SendAdvice")
                        .advice(named("sendAsync").and(takesArguments(2)), "dev.retryafter.agent.instrument.jdk.SendAsyncAdvice")
                        .advice(named("sendAsync").and(takesArguments(3)),
                                "dev.retryafter.agent.instrument.jdk.SendAsyncAdvice$WithPushPromises"))
                .type(namedOneOf(APACHE5_CLIENTS))
                .transform(advice.advice(named("doExecute").and(takesArguments(3)),
                        "dev.retryafter.agent.instrument.apache5.ExecuteAdvice"))
                .type(named(APACHE5_RETRY_EXEC))
                .transform(advice.advice(isConstructor().and(takesArguments(1)),
                        "dev.retryafter.agent.instrument.apache5.RetryStrategyAdvice"))
                .type(namedOneOf(APACHE4_CLIENTS))
                .transform(advice.advice(named("doExecute").and(takesArguments(3)),
                        "dev.retryafter.agent.instrument.apache4.ExecuteAdvice"))
                .type(namedOneOf(APACHE4_RETRY_HOLDERS))
                .transform(advice.advice(isConstructor().and(takesArguments(2)),
                        "dev.retryafter.agent.instrument.apache4.RetryStrategyAdvice"))
                .installOn(instrumentation);
    }

    /** A class that cannot be instrumented stays as it was, and says so once. */
    private static final class FailureListener extends AgentBuilder.Listener.Adapter {
        @Override
        public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded, Throwable throwable) {
            AgentLog.failure("instrumenting " + typeName, throwable);
        }

        @Override
        public void onTransformation(TypeDescription type, ClassLoader classLoader, JavaModule module, boolean loaded,
                                     DynamicType dynamicType) {
            AgentLog.logger().debug("instrumented {}", type.getName());
        }
    }
}
