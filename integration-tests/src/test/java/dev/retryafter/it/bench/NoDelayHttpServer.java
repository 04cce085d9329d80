package dev.retryafter.it.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loopback HTTP/1.1 server that sends each response whole, in one write, with Nagle's algorithm off
 * ({@code TCP_NODELAY}, as nginx's {@code tcp_nodelay on}): a round trip takes the 1 to 3 ms the virtual
 * run is given. The JDK's {@code HttpServer} writes headers and body in two packets, and unless
 * {@code sun.net.httpserver.nodelay} was set before the test JVM's first server (it is read once per JVM)
 * Nagle holds the body until the client's delayed ACK: 43 to 52 ms a request on this machine. That
 * stretched the 2 s window's first 20 requests from 40 ms to a second, so the 1 s retry after the
 * refusal landed at the reset, a coin toss between a first period read as 2.1 s or as 3.0 s; and it
 * slowed the in-flight cap's slow start by half, read as its rate.
 *
 * <p>Enough HTTP for the demo scraper's clients: a request's head, a body of {@code Content-Length}
 * discarded, keep-alive unless the client says {@code close} (an HTTP/1.0 client, unless it asks to keep it).
 */
final class NoDelayHttpServer implements AutoCloseable {

    /** What to answer a request with. */
    record Response(int status, Map<String, String> headers, byte[] body) {
    }

    /** Answers one request, given its headers (names in any case); may block, as a portal's service does. */
    interface Handler {
        Response handle(Map<String, String> requestHeaders) throws IOException, InterruptedException;

        /** The response is written: the client cannot have it sooner. */
        default void written(Map<String, String> requestHeaders, Response response) {
        }
    }

    private static final int MAX_HEAD_BYTES = 64 * 1024;

    private final ServerSocket socket;
    private final Handler handler;
    private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "no-delay-portal");
        thread.setDaemon(true);
        return thread;
    });
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    NoDelayHttpServer(Handler handler) throws IOException {
        this.handler = handler;
        this.socket = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        threads.execute(this::accept);
    }

    int port() {
        return socket.getLocalPort();
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket connection = socket.accept();
                connection.setTcpNoDelay(true);
                open.add(connection);
                threads.execute(() -> serve(connection));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket connection) {
        try (Socket closing = connection) {
            InputStream in = new BufferedInputStream(connection.getInputStream());
            OutputStream out = connection.getOutputStream();
            for (;;) {
                String head = readHead(in);
                if (head == null) {
                    return; // the client closed the connection between requests
                }
                String[] lines = head.split("\r\n");
                Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
                for (int i = 1; i < lines.length; i++) {
                    int colon = lines[i].indexOf(':');
                    if (colon > 0) {
                        headers.put(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
                    }
                }
                in.skipNBytes(Long.parseLong(headers.getOrDefault("Content-Length", "0")));
                String connectionHeader = headers.getOrDefault("Connection", "").toLowerCase(java.util.Locale.ROOT);
                boolean keepAlive = lines[0].endsWith("HTTP/1.1") ? !connectionHeader.contains("close") : connectionHeader.contains("keep-alive");
                Response response = handler.handle(headers);
                out.write(bytes(response, keepAlive));
                out.flush();
                handler.written(headers, response);
                if (!keepAlive) {
                    return;
                }
            }
        } catch (IOException e) {
            // the client went away, or the server is closing: nothing to answer
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            open.remove(connection);
        }
    }

    /** A request's head up to its blank line, or null at the end of the stream before one began. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0; // of "\r\n\r\n"
        for (int b = in.read(); b >= 0; b = in.read()) {
            head.write(b);
            matched = b == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : b == '\r' ? 1 : 0;
            if (matched == 4) {
                return head.toString(StandardCharsets.ISO_8859_1);
            }
            if (head.size() > MAX_HEAD_BYTES) {
                throw new IOException("a request head over " + MAX_HEAD_BYTES + " bytes");
            }
        }
        if (head.size() > 0) {
            throw new IOException("the stream ended inside a request head");
        }
        return null;
    }

    /** The status line, headers and body as one array: one write, so one packet. */
    private static byte[] bytes(Response response, boolean keepAlive) {
        StringBuilder head = new StringBuilder("HTTP/1.1 ").append(response.status()).append(' ').append(reason(response.status())).append("\r\n");
        response.headers().forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Content-Length: ").append(response.body().length).append("\r\n");
        if (!keepAlive) {
            head.append("Connection: close\r\n");
        }
        head.append("\r\n");
        byte[] start = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[start.length + response.body().length];
        System.arraycopy(start, 0, all, 0, start.length);
        System.arraycopy(response.body(), 0, all, start.length, response.body().length);
        return all;
    }

    private static String reason(int status) {
        switch (status) {
            case 200:
                return "OK";
            case 403:
                return "Forbidden";
            case 429:
                return "Too Many Requests";
            case 503:
                return "Service Unavailable";
            default:
                return "Status";
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        for (Socket connection : open) {
            connection.close(); // a thread blocked reading the next request ends
        }
        threads.shutdownNow();
    }
}
