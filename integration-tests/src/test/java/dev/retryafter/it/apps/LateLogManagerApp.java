package dev.retryafter.it.apps;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.logging.LogManager;
import javax.management.ObjectName;

/**
 * Does what jboss-modules does: names its own JUL {@code LogManager} in {@code main}, which works only
 * if nothing made the platform MBean server or the LogManager before. Then one request, and a look
 * for the agent's MBean, which should appear after it. Prints what it found; needs
 * {@code --add-opens java.management/java.lang.management=ALL-UNNAMED} to look at the MBean server.
 */
public final class LateLogManagerApp {

    private LateLogManagerApp() {
    }

    /** The application's own log manager. */
    public static final class OwnLogManager extends LogManager {
    }

    public static void main(String[] args) throws Exception {
        Field server = ManagementFactory.class.getDeclaredField("platformMBeanServer");
        server.setAccessible(true);
        System.out.println("MBEAN_SERVER_BEFORE_MAIN " + (server.get(null) == null ? "none" : "made"));
        System.setProperty("java.util.logging.manager", OwnLogManager.class.getName());
        System.out.println("LOG_MANAGER " + LogManager.getLogManager().getClass().getSimpleName());

        HttpClient client = HttpClient.newHttpClient();
        int status = client.send(HttpRequest.newBuilder(URI.create(args[0] + "/records/1")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode();
        System.out.println("STATUS " + status);

        ObjectName agent = new ObjectName("dev.retryafter:type=Agent");
        long deadline = System.nanoTime() + 30_000_000_000L;
        boolean registered = false;
        while (!registered && System.nanoTime() < deadline) {
            registered = ManagementFactory.getPlatformMBeanServer().isRegistered(agent);
            if (!registered) {
                Thread.sleep(50);
            }
        }
        System.out.println("AGENT_MBEAN " + (registered ? "registered" : "absent"));
    }
}
