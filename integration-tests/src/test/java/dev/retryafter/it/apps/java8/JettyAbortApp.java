package dev.retryafter.it.apps.java8;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Jetty HttpClient (12 when {@code args[0]} is {@code "12"}, else the 9.4, 10 or 11 on the class path), used through
 * reflection: after a GET that loads the client ({@code args[1]}), a GET of {@code args[2]} that the host refuses, so
 * that it waits to be sent again, and a second GET of it a second later, which waits for its first turn behind that
 * refusal. Another thread aborts both 3 s in, as a watchdog for a hard timeout does. Prints how each ended and after
 * how long. Java 8 bytecode.
 */
public final class JettyAbortApp {

    private JettyAbortApp() {
    }

    public static void main(String[] args) throws Exception {
        String api = args[0].equals("12") ? "org.eclipse.jetty.client." : "org.eclipse.jetty.client.api.";
        ClassLoader loader = JettyAbortApp.class.getClassLoader();
        Class<?> request = Class.forName(api + "Request", false, loader);
        Object client = Class.forName("org.eclipse.jetty.client.HttpClient", true, loader).getConstructor().newInstance();
        client.getClass().getMethod("start").invoke(client);
        Method newRequest = client.getClass().getMethod("newRequest", String.class);
        Method send = request.getMethod("send");
        Method abort = request.getMethod("abort", Throwable.class);
        Method status = Class.forName(api + "Response", false, loader).getMethod("getStatus");
        send.invoke(newRequest.invoke(client, args[1]));

        Object retried = newRequest.invoke(client, args[2]);
        Object queued = newRequest.invoke(client, args[2]);
        CountDownLatch ended = new CountDownLatch(2);
        sendAndReport(send, status, retried, "retry wait", ended);
        Thread.sleep(1_000);
        sendAndReport(send, status, queued, "first turn", ended);
        Thread.sleep(2_000);
        Exception cause = new Exception("aborted by the application's watchdog");
        abort.invoke(retried, cause);
        abort.invoke(queued, cause);
        ended.await(120, TimeUnit.SECONDS);
        System.exit(0);
    }

    /** Sends {@code request} on a thread of its own, and prints how it ended and after how long. */
    private static void sendAndReport(Method send, Method status, Object request, String what, CountDownLatch ended) {
        Thread sender = new Thread(() -> {
            long start = System.nanoTime();
            String outcome;
            try {
                Object response = send.invoke(request);
                outcome = "status " + status.invoke(response);
            } catch (InvocationTargetException e) {
                outcome = e.getCause().toString();
            } catch (ReflectiveOperationException e) {
                outcome = e.toString();
            }
            System.out.println("ABORT " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + what + ": " + outcome);
            ended.countDown();
        });
        sender.setDaemon(true);
        sender.start();
    }
}
