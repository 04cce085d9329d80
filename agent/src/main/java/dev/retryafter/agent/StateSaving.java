package dev.retryafter.agent;

import dev.retryafter.agent.engine.DaemonThreads;
import dev.retryafter.agent.engine.FileKnowledgeStore;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Writes the state file every interval, on a daemon thread of its own, and at exit. A failure is
 * logged, once while it repeats, and never reaches the application. Not a lambda anywhere: see
 * AgentInstaller.
 */
final class StateSaving {

    private final FileKnowledgeStore state;
    private final Consumer<String> warn;
    private volatile String lastFailure;

    StateSaving(FileKnowledgeStore state, Consumer<String> info, Consumer<String> warn) {
        this.state = state;
        this.warn = warn;
    }

    /** Saves every {@code intervalMillis} from now on. */
    void start(long intervalMillis) {
        ScheduledExecutorService saver = Executors.newSingleThreadScheduledExecutor(new DaemonThreads("retry-after-agent-state"));
        saver.scheduleWithFixedDelay(new Runnable() {
            @Override
            public void run() {
                save();
            }
        }, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /** One save now. */
    void save() {
        try {
            state.save();
            lastFailure = null;
        } catch (Throwable t) {
            String failure = String.valueOf(t);
            if (!failure.equals(lastFailure)) {
                warn.accept("could not write the state file " + state.file() + ": " + failure);
            }
            lastFailure = failure;
        }
    }
}
