package dev.retryafter.agent.engine.learn;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConcurrentTimestampRingTest {

    @Test
    void keepsTheLastCapacityTimestampsGrowingAsItGoes() {
        ConcurrentTimestampRing ring = new ConcurrentTimestampRing(16);
        assertEquals(0, ring.size());
        for (long t = 1; t <= 5; t++) {
            ring.add(t);
        }
        assertEquals(Set.of(1L, 2L, 3L, 4L, 5L), contents(ring));
        for (long t = 6; t <= 40; t++) {
            ring.add(t);
        }
        Set<Long> last16 = new HashSet<>();
        for (long t = 25; t <= 40; t++) {
            last16.add(t);
        }
        assertEquals(last16, contents(ring));
    }

    @Test
    void threadsAddingAtOnceFillItWithTheirTimestampsAndNothingElse() throws Exception {
        ConcurrentTimestampRing ring = new ConcurrentTimestampRing(512);
        int threads = 4;
        int each = 100_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> adders = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            long base = (i + 1) * 1_000_000L;
            Thread adder = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int n = 1; n <= each; n++) {
                    ring.add(base + n);
                }
            });
            adders.add(adder);
            adder.start();
        }
        start.countDown();
        for (Thread adder : adders) {
            adder.join();
        }
        assertEquals(512, ring.size());
        for (int i = 0; i < ring.size(); i++) {
            long t = ring.get(i);
            long thread = t / 1_000_000L;
            long n = t % 1_000_000L;
            assertTrue(thread >= 1 && thread <= threads && n >= 1 && n <= each, "slot " + i + " holds " + t + ", which no thread added");
        }
    }

    @Test
    void refusesACapacityItCannotDouble() {
        assertThrows(IllegalArgumentException.class, () -> new ConcurrentTimestampRing(500));
    }

    private static Set<Long> contents(ConcurrentTimestampRing ring) {
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < ring.size(); i++) {
            seen.add(ring.get(i));
        }
        return seen;
    }
}
