package dev.retryafter.it.apps;

import org.eclipse.jetty.client.HttpClient;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.concurrent.ExecutionException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Jetty 12's client, blocking {@code send()}: GETs {@code <url>/<i>} for i below {@code <count>}, one after another,
 * each answered by a redirect Jetty follows itself; says each as it completes ({@code DONE i status}, 0: failed), then
 * {@code OK n} for the 200s, then what the agent's host bean says: {@code IN-FLIGHT n} (permits still held) and
 * {@code REQUESTS n} (attempts it let go).
 */
public final class JettyRedirectApp {

    private JettyRedirectApp() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int count = Integer.parseInt(args[1]);
        HttpClient client = new HttpClient();
        client.start();
        int ok = 0;
        for (int i = 0; i < count; i++) {
            int status;
            try {
                status = client.newRequest(url + "/" + i).send().getStatus();
            } catch (ExecutionException e) {
                status = 0; // failed fast: the host is held
            }
            System.out.println("DONE " + i + " " + status);
            if (status == 200) {
                ok++;
            }
        }
        System.out.println("OK " + ok);
        MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
        ObjectName host = new ObjectName("dev.retryafter:type=Host,name=" + ObjectName.quote("127.0.0.1:" + URI.create(url).getPort()));
        for (int waited = 0; !beans.isRegistered(host) && waited < 600; waited++) {
            Thread.sleep(100); // host beans are added on the agent's next sync (every second)
        }
        System.out.println("IN-FLIGHT " + beans.getAttribute(host, "InFlight"));
        System.out.println("REQUESTS " + beans.getAttribute(host, "Requests"));
        client.stop();
    }
}
