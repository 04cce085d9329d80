package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Policy;

/** What the agent was told: whether it is on, where to write its report, and the host policies. */
public final class AgentConfig {

    private final boolean enabled;
    private final String reportPath;
    private final Policies policies;
    private final String source;
    private final StateFile stateFile;
    private final StoreSettings store;

    /** Written every minute, and at exit. */
    static final long DEFAULT_STATE_INTERVAL_MILLIS = 60_000;
    /** A week: knowledge older than that says little about the portal today. */
    static final long DEFAULT_STATE_MAX_AGE_MILLIS = 7 * 24 * 3_600_000L;

    AgentConfig(boolean enabled, String reportPath, Policies policies, String source) {
        this(enabled, reportPath, policies, source,
                new StateFile(null, DEFAULT_STATE_INTERVAL_MILLIS, DEFAULT_STATE_MAX_AGE_MILLIS), StoreSettings.inMemory());
    }

    AgentConfig(boolean enabled, String reportPath, Policies policies, String source, StateFile stateFile,
            StoreSettings store) {
        this.enabled = enabled;
        this.reportPath = reportPath;
        this.policies = policies;
        this.source = source;
        this.stateFile = stateFile;
        this.store = store;
    }

    /** {@code state-file}, {@code state-interval}, {@code state-max-age}: where learned state is kept across runs. */
    public static final class StateFile {
        private final String path;
        private final long intervalMillis;
        private final long maxAgeMillis;

        StateFile(String path, long intervalMillis, long maxAgeMillis) {
            this.path = path;
            this.intervalMillis = intervalMillis;
            this.maxAgeMillis = maxAgeMillis;
        }

        /** Null when no state file is configured: the agent learns afresh in every run. */
        public String path() {
            return path;
        }

        public long intervalMillis() {
            return intervalMillis;
        }

        public long maxAgeMillis() {
            return maxAgeMillis;
        }
    }

    /** No file, no argument: on, every host on the defaults, the report to the log. */
    public static AgentConfig defaults() {
        return new AgentConfig(true, null, Policies.defaultsOnly(Policy.DEFAULTS), "defaults");
    }

    /** The same, switched on or off by {@code switchedBy}, which the start-up line then names. */
    AgentConfig withEnabled(boolean on, String switchedBy) {
        return new AgentConfig(on, reportPath, policies, source + ", " + switchedBy, stateFile, store);
    }

    public boolean enabled() {
        return enabled;
    }

    /** Where the JSON report goes at exit; null to write the summary to the log only. */
    public String reportPath() {
        return reportPath;
    }

    public StateFile stateFile() {
        return stateFile;
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
