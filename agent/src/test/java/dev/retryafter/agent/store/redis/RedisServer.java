package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.RedisAddress;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} of the tests' own, on a free loopback port, with no persistence: never
 * a system service. Stopped, killed (SIGKILL), paused (SIGSTOP) and started again on the same port
 * for the fault tests. Where no redis-server is installed the tests that need one are skipped with
 * a loud banner, except in CI ({@code CI=true}), where they fail: a CI run that skips them has not
 * tested the fleet store.
 */
public final class RedisServer implements AutoCloseable {

    private static final java.util.concurrent.atomic.AtomicBoolean BANNER_SHOWN = new java.util.concurrent.atomic.AtomicBoolean();

    private final String executable;
    private final int port;
    private final String password;
    private final Path log;
    private Process process;

    private RedisServer(String executable, int port, String password) throws IOException {
        this.executable = executable;
        this.port = port;
        this.password = password;
        this.log = Files.createTempFile("redis-server-" + port + "-", ".log");
    }

    /** A server on a free port, started; skipped or failed as the class comment says when there is none. */
    public static RedisServer start() throws IOException, InterruptedException {
        return start(null);
    }

    static RedisServer start(String requirePassword) throws IOException, InterruptedException {
        RedisServer server = new RedisServer(executableOrSkip(), freePort(), requirePassword);
        server.startAgain();
        return server;
    }

    public int port() {
        return port;
    }

    public RedisAddress address() {
        return RedisAddress.parse("redis://127.0.0.1:" + port);
    }

    /** Starts the server again on the same port, empty: what a restarted Redis without persistence is. */
    public void startAgain() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(executable);
        command.add("--port");
        command.add(Integer.toString(port));
        command.add("--bind");
        command.add("127.0.0.1");
        command.add("--save");
        command.add("");
        command.add("--appendonly");
        command.add("no");
        command.add("--daemonize");
        command.add("no");
        if (password != null) {
            command.add("--requirepass");
            command.add(password);
        }
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                Assertions.fail("redis-server exited at start (" + process.exitValue() + "): " + logText());
            }
            if (answersPing()) {
                return;
            }
            Thread.sleep(20);
        }
        Assertions.fail("redis-server did not answer on port " + port + " within 20 s: " + logText());
    }

    /** SIGKILL: no goodbye to the clients, as when a host dies. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGSTOP: connections stay open and nothing answers, as a Redis stuck in a long command or a swap storm. */
    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        Assertions.assertEquals(0, kill.waitFor(), "kill -" + name);
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            resumeQuietly();
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private void resumeQuietly() {
        try {
            new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start().waitFor();
        } catch (IOException | InterruptedException e) {
            // stopping it anyway
        }
    }

    /** A raw RESP PING (with AUTH first when there is a password), so the helper does not depend on the client under test. */
    private boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            if (password != null) {
                out.write(("AUTH " + password + "\r\n").getBytes(StandardCharsets.UTF_8));
                readLine(in);
            }
            out.write("PING\r\n".getBytes(StandardCharsets.UTF_8));
            return readLine(in).equals("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    private String logText() {
        try {
            return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String executableOrSkip() {
        String found = find();
        if (found != null) {
            return found;
        }
        String message = "redis-server NOT FOUND (REDIS_SERVER, PATH, /usr/bin, /usr/local/bin, /usr/sbin): the fleet store's "
                + "tests against a real Redis were NOT RUN. Install it (apt-get install -y redis-server).";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            Assertions.fail(message + " CI=true: failing rather than skipping.");
        }
        if (BANNER_SHOWN.compareAndSet(false, true)) {
            String bar = "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!";
            System.err.println(bar + "\n!!! " + message + "\n" + bar);
        }
        Assumptions.abort(message);
        return null;
    }

    /** {@code REDIS_SERVER} names the executable when set (and only it is tried); else PATH and the usual places. */
    private static String find() {
        String named = System.getenv("REDIS_SERVER");
        if (named != null && !named.isEmpty()) {
            File file = new File(named);
            return file.isFile() && file.canExecute() ? file.getPath() : null;
        }
        List<String> places = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                places.add(dir);
            }
        }
        places.add("/usr/bin");
        places.add("/usr/local/bin");
        places.add("/usr/sbin");
        for (String dir : places) {
            File candidate = new File(dir, "redis-server");
            if (candidate.isFile() && candidate.canExecute()) {
                return candidate.getPath();
            }
        }
        return null;
    }
}
