package dev.retryafter.agent;

/**
 * Kept for {@code store/redis} alone, whose rewrite is under way on another branch: the agent's log is
 * {@link dev.retryafter.agent.log.AgentLog}. Goes once that rewrite imports the {@code log} package.
 */
public final class AgentLog {

    private AgentLog() {
    }

    public static AgentLogger logger() {
        return new AgentLogger(dev.retryafter.agent.log.AgentLog.logger());
    }

    public static void failure(String where, Throwable failure) {
        dev.retryafter.agent.log.AgentLog.failure(where, failure);
    }
}
