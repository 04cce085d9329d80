package dev.retryafter.agent.engine;

import java.util.concurrent.ThreadFactory;

/** The agent's background threads: named, so a thread dump says whose they are, and daemons, so none keeps a JVM alive. */
public final class DaemonThreads implements ThreadFactory {

    private final String name;

    public DaemonThreads(String name) {
        this.name = name;
    }

    @Override
    public Thread newThread(Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }
}
