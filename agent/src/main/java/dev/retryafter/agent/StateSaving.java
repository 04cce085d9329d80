package dev.retryafter.agent;

import dev.retryafter.agent.engine.DaemonThreads;
import dev.retryafter.agent.store.file.FileKnowledgeStore;

import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Writes the state file every interval, on a daemon thread of its own, and at exit. A failure never
 * reaches the application: it is said once per cause, and its end once. Not a lambda anywhere: see
 * AgentInstaller.
 */
final class StateSaving {

    private final FileKnowledgeStore state;
    private volatile ScheduledExecutorService saver;
    private final Consumer<String> info;
    private final Consumer<String> warn;
    /** Guarded by this: the exit's save and a periodic one may overlap. */
    private String lastFailure;
    private int failedSaves;

    StateSaving(FileKnowledgeStore state, Consumer<String> info, Consumer<String> warn) {
        this.state = state;
        this.info = info;
        this.warn = warn;
    }

    /** Saves every {@code intervalMillis} from now on, until {@link #atExit()}. */
    void start(long intervalMillis) {
        saver = Executors.newSingleThreadScheduledExecutor(new DaemonThreads("retry-after-agent-state"));
        saver.scheduleWithFixedDelay(new Runnable() {
            @Override
            public void run() {
                save();
            }
        }, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /** One save now. */
    void save() {
        save(false);
    }

    /**
     * The last save, from the exit's hook: no periodic save starts after it, since the JVM halts
     * once the hooks are done, and a save cut short there leaves its temporary file behind.
     */
    void atExit() {
        ScheduledExecutorService periodic = saver;
        if (periodic != null) {
            periodic.shutdown();
        }
        save(true);
    }

    private void save(boolean last) {
        String failure;
        try {
            if (last) {
                state.saveLast();
            } else {
                state.save();
            }
            failure = null;
        } catch (IOException e) {
            failure = e.getMessage(); // the cause, in words that stay the same while it lasts
        } catch (Throwable t) {
            failure = String.valueOf(t);
        }
        said(failure);
    }

    /** A WARN when saving starts failing or fails for another cause; an INFO when it works again. */
    private synchronized void said(String failure) {
        if (failure == null) {
            if (failedSaves > 0) {
                info.accept("state file " + state.file() + " written again, after " + failedSaves
                        + (failedSaves == 1 ? " save" : " saves") + " that failed");
            }
            failedSaves = 0;
            lastFailure = null;
            return;
        }
        failedSaves++;
        if (!failure.equals(lastFailure)) {
            warn.accept("could not write the state file " + state.file() + ": " + failure
                    + "; what was learned stays in memory, and later saves try again (said once while this lasts)");
        }
        lastFailure = failure;
    }
}
