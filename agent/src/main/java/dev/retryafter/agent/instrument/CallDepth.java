package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.Call;

/**
 * The call this thread is inside. A client that wraps another client, Apache's retry execs under
 * the agent's loop, and the agent's own resends all reach an instrumented method again; only the
 * outermost is governed, or attempts would multiply.
 */
public final class CallDepth {

    private final ThreadLocal<Call> current = new ThreadLocal<>();

    public boolean isInside() {
        return current.get() != null;
    }

    /** The governed call on this thread, or null. */
    public Call current() {
        return current.get();
    }

    /** Marks this thread as inside {@code call}; returns what to restore. */
    public Call enter(Call call) {
        Call previous = current.get();
        current.set(call);
        return previous;
    }

    /**
     * Set to null rather than removed: every request passes here, and a removed entry is allocated
     * again, weak reference and all, by the next. The agent is never unloaded, so nothing leaks.
     */
    public void restore(Call previous) {
        current.set(previous);
    }
}
