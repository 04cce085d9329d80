package dev.retryafter.it.apps;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.logging.LogManager;

/**
 * Waits until the agent's metrics endpoint (port in {@code args[0]}) answers a scrape, sent over a bare
 * socket so that no client the agent governs is involved, then does what jboss-modules does: names its
 * own JUL {@code LogManager}, which works only if nothing made the LogManager before. Prints
 * {@code SCRAPED <status>} and {@code LOG_MANAGER <class>}.
 */
public final class LogManagerAfterScrapeApp {

    private LogManagerAfterScrapeApp() {
    }

    /** The application's own log manager. */
    public static final class OwnLogManager extends LogManager {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        long deadline = System.nanoTime() + 60_000_000_000L;
        int status = -1;
        while (status < 0 && System.nanoTime() < deadline) {
            try {
                status = scrape(port);
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        System.out.println("SCRAPED " + status);
        System.setProperty("java.util.logging.manager", OwnLogManager.class.getName());
        System.out.println("LOG_MANAGER " + LogManager.getLogManager().getClass().getSimpleName());
    }

    /** The status of {@code GET /metrics}, the whole answer read. */
    private static int scrape(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (!answer.startsWith("HTTP/1.1 ")) {
                throw new IOException("not an HTTP answer: " + answer);
            }
            return Integer.parseInt(answer.substring(9, 12));
        }
    }
}
