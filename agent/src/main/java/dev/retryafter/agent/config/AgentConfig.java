package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Policy;

/** What the agent was told: whether it is on, where to write its report, and the host policies. */
public final class AgentConfig {

    private final boolean enabled;
    private final String reportPath;
    private final Policies policies;
    private final String source;
    private final StoreSettings store;

    AgentConfig(boolean enabled, String reportPath, Policies policies, String source) {
        this(enabled, reportPath, policies, source, StoreSettings.inMemory());
    }

    AgentConfig(boolean enabled, String reportPath, Policies policies, String source, StoreSettings store) {
        this.enabled = enabled;
        this.reportPath = reportPath;
        this.policies = policies;
        this.source = source;
        this.store = store;
    }

    /** No file, no argument: on, every host on the defaults, the report to the log. */
    public static AgentConfig defaults() {
        return new AgentConfig(true, null, Policies.defaultsOnly(Policy.DEFAULTS), "defaults");
    }

    /** The same, switched on or off by {@code switchedBy}, which the start-up line then names. */
    AgentConfig withEnabled(boolean on, String switchedBy) {
        return new AgentConfig(on, reportPath, policies, source + ", " + switchedBy, store);
    }

    public boolean enabled() {
        return enabled;
    }

    /** Where the JSON report goes at exit; null to write the summary to the log only. */
    public String reportPath() {
        return reportPath;
    }

    public Policies policies() {
        return policies;
    }

    /** Where what is learned is kept: in memory, or on a fleet's Redis. */
    public StoreSettings store() {
        return store;
    }

    /** The file and argument this came from, for the start-up line. */
    public String source() {
        return source;
    }
}
