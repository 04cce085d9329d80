package dev.retryafter.it.cost;

import dev.retryafter.it.harness.ChildJvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@link LoopbackServer} in a JVM of its own, up for the whole benchmark. Not in the benchmark's
 * JVM, for two reasons. The JDK's server writes a response's headers and body as two packets, and
 * Nagle's algorithm then holds the body until the client's delayed ACK: about 40 ms a request, some
 * 22 requests a second per connection, which would measure the ACK timer and nothing else. The fix,
 * {@code sun.net.httpserver.nodelay}, is read once per JVM, and a test JVM running other tests may
 * have read it already. And its own JVM keeps the server's GC and JIT out of whatever else the
 * benchmark's JVM is doing (Maven, or other tests).
 */
final class ServerJvm implements AutoCloseable {

    private static final long START_TIMEOUT_SECONDS = 30;

    private final Process process;
    private final URI url;

    private ServerJvm(Process process, URI url) {
        this.process = process;
        this.url = url;
    }

    /** Starts the server on the benchmark's own JDK, there whichever child JDKs are missing, and waits until it listens. */
    static ServerJvm start(Snapshot snapshot) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path log = ChildJvm.workDir().resolve("cost-loopback-server.err.txt");
        Process process = new ProcessBuilder(List.of(java.toString(), "-Dsun.net.httpserver.nodelay=true",
                "-Xms128m", "-Xmx128m", "-cp", snapshot.classes().toString(), LoopbackServer.class.getName()))
                .redirectError(log.toFile()).start();
        try {
            return new ServerJvm(process, awaitUrl(process));
        } catch (IOException | InterruptedException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    private static URI awaitUrl(Process process) throws IOException, InterruptedException {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        String first;
        try {
            first = line.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("the loopback server did not start", e);
        }
        if (first == null || !first.startsWith(LoopbackServer.LISTENING + " ")) {
            throw new IOException("the loopback server did not start; it printed " + first);
        }
        return URI.create(first.substring(LoopbackServer.LISTENING.length() + 1));
    }

    URI url() {
        return url;
    }

    /** Ends the server's input, which stops it; forcibly if it has not gone in a few seconds. */
    @Override
    public void close() throws IOException, InterruptedException {
        process.getOutputStream().close();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
