package dev.retryafter.agent.instrument.jdk;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.Target;

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
}
