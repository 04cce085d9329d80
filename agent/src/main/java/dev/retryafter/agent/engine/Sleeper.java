package dev.retryafter.agent.engine;

/** How a blocking caller waits. Tests pass one that advances a virtual clock instead. */
@FunctionalInterface
public interface Sleeper {

    /** Waits, or throws at once when interrupted; the interrupt is the caller's to keep. */
    void sleep(long millis) throws InterruptedException;

    Sleeper SYSTEM = new Sleeper() {
        @Override
        public void sleep(long millis) throws InterruptedException {
            Thread.sleep(millis);
        }
    };
}
