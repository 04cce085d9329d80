package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.DaemonThreads;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Discards the body of a refused response before the retry, within a small bound of time and bytes,
 * for both Apache versions. A body read to its end leaves its connection fit for the pool; one that
 * stalls, is cut or never ends is aborted instead: its connection is closed, never reused, and the
 * retry opens another. Closing such a body the ordinary way would read it to its end, for as long as
 * the socket timeout allows (Apache 4's default: for ever).
 *
 * <p>The abort is the client's own stream method, named by the advice ({@code abortConnection} in
 * Apache 4, {@code abort} in 5) and called by reflection: the agent cannot name the client's types.
 * It closes the socket, which also ends a read blocked on it, so the time bound holds while a read
 * waits for bytes that never come.
 */
public final class RefusedBody {

    /** OkHttp gives a body it discards 100 ms ({@code Util.discard} in {@code Http1ExchangeCodec}): time enough for a small body on any link. */
    static final long TIME_BOUND_MILLIS = 100;
    /** A refusal's explanation is a line or a page; more than this is not worth a connection's reuse. */
    static final int BYTE_BOUND = 64 * 1024;

    private static final ScheduledExecutorService WATCHDOG = watchdog();

    private RefusedBody() {
    }

    /**
     * Reads and drops {@code body}; true when it was read to its end within the bounds, false when
     * it was aborted (or could not be read at all), so its connection must not be reused.
     */
    public static boolean discard(InputStream body, String abortMethod) {
        return discard(body, abortMethod, TIME_BOUND_MILLIS, BYTE_BOUND);
    }

    static boolean discard(InputStream body, String abortMethod, long timeBoundMillis, int byteBound) {
        if (body == null) {
            return true;
        }
        AtomicBoolean aborted = new AtomicBoolean();
        ScheduledFuture<?> deadline = WATCHDOG.schedule(() -> abort(body, abortMethod, aborted), timeBoundMillis, TimeUnit.MILLISECONDS);
        boolean ended = false;
        try {
            ended = readToEnd(body, byteBound);
        } catch (IOException | RuntimeException e) {
            // Cut, or aborted by the deadline: either way the connection goes.
        } finally {
            deadline.cancel(false);
        }
        if (!ended || aborted.get()) {
            abort(body, abortMethod, aborted);
            return false;
        }
        return true;
    }

    private static boolean readToEnd(InputStream body, int byteBound) throws IOException {
        byte[] buffer = new byte[4096];
        long read = 0;
        int n;
        while ((n = body.read(buffer)) >= 0) {
            read += n;
            if (read > byteBound) {
                return false;
            }
        }
        return true;
    }

    /** Once only: the deadline and the reader may both get here. */
    private static void abort(InputStream body, String abortMethod, AtomicBoolean aborted) {
        if (!aborted.compareAndSet(false, true)) {
            return;
        }
        try {
            Method abort = abortMethod == null ? null : findAbort(body.getClass(), abortMethod);
            if (abort != null) {
                abort.invoke(body);
            } else {
                body.close(); // a stream that is not the client's own reads from memory, not a socket
            }
        } catch (Exception | LinkageError e) {
            // Nothing more can be done for a connection that will not close: the retry opens another.
        }
    }

    private static Method findAbort(Class<?> type, String name) {
        try {
            return type.getMethod(name);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    private static ScheduledExecutorService watchdog() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, new DaemonThreads("retry-after-agent-discard"));
        executor.setRemoveOnCancelPolicy(true); // most deadlines are cancelled: they must not pile up
        return executor;
    }
}
