package dev.retryafter.agent.instrument;

import java.io.IOException;

/**
 * The {@code java.net.http} side of the hooks, behind a Java 8 interface: its implementation is built
 * for Java 11 and names {@code java.net.http} types, so its module makes it only where they exist.
 */
public interface JdkClientHooks {

    /** {@code HttpClient.send}: the final response, or null to run the original method. */
    Object send(Object client, Object request, Object bodyHandler) throws IOException, InterruptedException;

    /** {@code HttpClient.sendAsync}: a future of the final response, or null to run the original. */
    Object sendAsync(Object client, Object request, Object bodyHandler, Object pushPromiseHandler);
}
