package dev.retryafter.agent.jmx;

/** What a steering operation came to: whether what was asked is now so, and one line that says what changed or why not. */
public final class Outcome {

    public final boolean done;
    public final String line;

    public Outcome(boolean done, String line) {
        this.done = done;
        this.line = line;
    }
}
