package dev.retryafter.agent;

/**
 * Kept for {@code store/redis} alone (see {@link AgentLog}): the agent's logger is
 * {@link dev.retryafter.agent.log.AgentLogger}, which this hands every line to.
 */
public final class AgentLogger {

    private final dev.retryafter.agent.log.AgentLogger log;

    AgentLogger(dev.retryafter.agent.log.AgentLogger log) {
        this.log = log;
    }

    public boolean isDebugEnabled() {
        return log.isDebugEnabled();
    }

    public void debug(String message, Object... arguments) {
        log.debug(message, arguments);
    }

    public void info(String message, Object... arguments) {
        log.info(message, arguments);
    }

    public void warn(String message, Object... arguments) {
        log.warn(message, arguments);
    }
}
