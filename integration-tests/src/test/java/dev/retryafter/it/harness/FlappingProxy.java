package dev.retryafter.it.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on loopback in front of a Redis whose link it makes flap: up for {@code upMillis}
 * (give or take half), then down for {@code downMillis} (give or take half), over and over. Down is,
 * in turn, every connection cut and new ones closed at once (Redis restarting, a link dropped), or
 * every connection stalled, bytes held back until it is up again (Redis in a long command, a swap
 * storm): the client's commands time out.
 */
public final class FlappingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Random random = new Random(28);
    private volatile boolean refusing;
    private volatile boolean stalled;
    private volatile boolean closed;
    private final AtomicInteger cuts = new AtomicInteger();
    private final AtomicInteger stalls = new AtomicInteger();

    public FlappingProxy(int targetPort, long upMillis, long downMillis) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        daemon("proxy-accept", this::accept);
        daemon("proxy-flap", () -> flap(upMillis, downMillis));
    }

    public int port() {
        return server.getLocalPort();
    }

    public int cuts() {
        return cuts.get();
    }

    public int stalls() {
        return stalls.get();
    }

    private void flap(long upMillis, long downMillis) {
        try {
            for (int round = 0; !closed; round++) {
                Thread.sleep(around(upMillis));
                if (round % 2 == 0) {
                    refusing = true;
                    for (Socket socket : open) {
                        closeQuietly(socket);
                    }
                    cuts.incrementAndGet();
                    Thread.sleep(around(downMillis));
                    refusing = false;
                } else {
                    stalled = true;
                    stalls.incrementAndGet();
                    Thread.sleep(around(downMillis));
                    stalled = false;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private long around(long millis) {
        return millis / 2 + (long) (random.nextDouble() * millis);
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            if (refusing) {
                closeQuietly(client);
                continue;
            }
            try {
                Socket redis = new Socket();
                redis.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 1000);
                open.add(client);
                open.add(redis);
                daemon("proxy-up", () -> pump(client, redis));
                daemon("proxy-down", () -> pump(redis, client));
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[8192];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                while (stalled && !closed) {
                    Thread.sleep(2);
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // cut, or the other side went: both ends go
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void closeQuietly(Socket socket) {
        open.remove(socket);
        try {
            socket.close();
        } catch (IOException e) {
            // closed already
        }
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket socket : open) {
            closeQuietly(socket);
        }
    }
}
