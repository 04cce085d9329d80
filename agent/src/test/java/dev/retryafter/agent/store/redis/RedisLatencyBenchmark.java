package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.engine.Clock;

import java.util.Arrays;
import java.util.Locale;

/**
 * What the fleet store adds to a request, on loopback against a real redis-server of its own: the
 * median and 99th percentile of a paced host's booking (one script, one round trip) and of an
 * unpaced host's check (the cached moments, no round trip). Not a test: run it by hand,
 * {@code java -cp <test classpath> dev.retryafter.agent.store.redis.RedisLatencyBenchmark [calls]}.
 */
public final class RedisLatencyBenchmark {

    private RedisLatencyBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        try (RedisServer server = RedisServer.start();
             RedisKnowledgeStore store = RedisFixture.store(server.address(), "bench", Clock.system(),
                     new RedisKnowledgeStore.Options(), new RecordingEvents())) {
            long[] paced = new long[calls];
            long[] unpaced = new long[calls];
            for (int round = 0; round < 2; round++) { // the first round warms up the JIT and the pool
                for (int i = 0; i < calls; i++) {
                    long start = System.nanoTime();
                    store.reserve("paced.example:443", System.currentTimeMillis(), 1, 1, 2000);
                    paced[i] = System.nanoTime() - start;
                }
                for (int i = 0; i < calls; i++) {
                    long start = System.nanoTime();
                    dev.retryafter.agent.engine.knowledge.HostKnowledge seen = store.seen("unpaced.example:443");
                    boolean quiet = seen == null || seen.owesNothingAt(System.currentTimeMillis());
                    store.admitted("unpaced.example:443", 2000);
                    unpaced[i] = System.nanoTime() - start + (quiet ? 0 : 1);
                }
            }
            System.out.println(line("paced host, one booking (EVALSHA)", paced));
            System.out.println(line("unpaced host, the fleet as seen", unpaced));
        }
    }

    private static String line(String what, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%-36s median %7.1f us, p99 %7.1f us, max %8.1f us (%d calls)", what,
                sorted[sorted.length / 2] / 1000.0, sorted[(int) (sorted.length * 0.99)] / 1000.0,
                sorted[sorted.length - 1] / 1000.0, sorted.length);
    }
}
