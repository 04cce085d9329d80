package dev.retryafter.agent.engine;

/** Where the engine reads the time: epoch milliseconds. Tests pass a virtual clock. */
@FunctionalInterface
public interface Clock {

    long millis();

    /**
     * Wall time taken once, then advanced by {@link System#nanoTime()}: a clock step (NTP, a VM
     * resume) must not reorder refusals and successes, and HTTP-dates still compare to real time.
     */
    static Clock system() {
        final long epochAtStart = System.currentTimeMillis();
        final long nanoAtStart = System.nanoTime();
        return new Clock() { // not a lambda: premain and a first request come this way (see AgentInstaller)
            @Override
            public long millis() {
                return epochAtStart + (System.nanoTime() - nanoAtStart) / 1_000_000L;
            }
        };
    }
}
