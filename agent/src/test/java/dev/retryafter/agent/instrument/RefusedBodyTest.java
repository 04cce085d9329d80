package dev.retryafter.agent.instrument;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A refused body is read to its end when it ends soon, and aborted with the client's own method when it does not. */
class RefusedBodyTest {

    @Test
    void aShortBodyIsReadToItsEndAndNotAborted() {
        Stalling body = new Stalling(new byte[1000], false);
        assertTrue(RefusedBody.discard(body, "abort"));
        assertEquals(0, body.aborts.get());
    }

    @Test
    void aStalledBodyIsAbortedByTheDeadline() {
        Stalling body = new Stalling(new byte[16], true);
        assertFalse(RefusedBody.discard(body, "abort", 50, 1 << 20));
        assertEquals(1, body.aborts.get(), "aborted once, by the client's own method");
    }

    @Test
    void aBodyOverTheByteBoundIsAbortedWithoutWaiting() {
        InputStream endless = new Stalling(new byte[0], false) {
            @Override
            public int read(byte[] buffer, int offset, int length) {
                return length; // never ends, never waits
            }
        };
        assertFalse(RefusedBody.discard(endless, "abort", 60_000, 64 * 1024), "returns at the byte bound, not the deadline");
    }

    @Test
    void aCutBodyIsAborted() {
        Stalling body = new Stalling(new byte[16], false) {
            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                throw new IOException("connection reset");
            }
        };
        assertFalse(RefusedBody.discard(body, "abort"));
        assertEquals(1, body.aborts.get());
    }

    /** Its bytes, then (when {@code stall}) a read that blocks until {@link #abort()}, as a socket does until it is closed. */
    public static class Stalling extends InputStream {
        final AtomicInteger aborts = new AtomicInteger();
        private final ByteArrayInputStream bytes;
        private final boolean stall;
        private final CountDownLatch aborted = new CountDownLatch(1);

        Stalling(byte[] content, boolean stall) {
            this.bytes = new ByteArrayInputStream(content);
            this.stall = stall;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = bytes.read(buffer, offset, length);
            if (n >= 0 || !stall) {
                return n;
            }
            try {
                aborted.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("socket closed");
        }

        /** The client's own abort, found by name. */
        public void abort() {
            aborts.incrementAndGet();
            aborted.countDown();
        }
    }
}
