package dev.retryafter.it.cost;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.Locale;

/**
 * The child JVM of a start-up run: one GET through one client, then a line of epoch milliseconds:
 * <pre>FIRST_RESPONSE client=jdk status=200 jvmStart=... mainEntered=... firstResponse=... classes=2345 version=17.0.15+6</pre>
 * {@code jvmStart} is when the JVM began, before any agent; {@code mainEntered} is when this main
 * began, after any agent's premain. Management beans are read only once the response is in, so
 * loading them is not counted.
 *
 * <p>Arguments: client, url.
 */
public final class FirstResponse {

    static final String RESULT = "FIRST_RESPONSE";

    private FirstResponse() {
    }

    public static void main(String[] args) throws Exception {
        long mainEntered = System.currentTimeMillis();
        String client = args[0];
        int status;
        long firstResponse;
        try (LoopbackClient http = LoopbackClient.open(client, URI.create(args[1]), 1)) {
            status = http.get();
            firstResponse = System.currentTimeMillis();
        }
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        int classes = ManagementFactory.getClassLoadingMXBean().getLoadedClassCount();
        System.out.printf(Locale.ROOT, "%s client=%s status=%d jvmStart=%d mainEntered=%d firstResponse=%d classes=%d version=%s%n",
                RESULT, client, status, jvmStart, mainEntered, firstResponse, classes, System.getProperty("java.runtime.version"));
    }
}
