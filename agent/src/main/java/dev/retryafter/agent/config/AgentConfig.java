package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.Policy;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** What the agent was told: whether it is on, where to write its report, and the host policies. */
public final class AgentConfig {

    private final boolean enabled;
    private final String reportPath;
    private final Policies policies;
    private final String source;
    private final StateFile stateFile;
    private final StoreSettings store;
    private final Read read;

    /** How often the policy file is looked at for changes, unless {@code reload} says otherwise. */
    static final long DEFAULT_RELOAD_MILLIS = 5_000;

    /**
     * What was read, beyond the values themselves: the mode, the reload interval, the class cache,
     * and what a reload needs to read it again and say what changed.
     */
    static final class Read {
        static final Read NONE = new Read(Mode.ENFORCE, DEFAULT_RELOAD_MILLIS, null, null,
                Collections.<PolicyFile.Line>emptyList(), Collections.<String, String>emptyMap(), Collections.<String, String>emptyMap(), null);

        final Mode mode;
        final long reloadMillis;
        /** {@code class-cache} as written; null when not written (the default place). */
        final String classCache;
        final Path file;
        final List<PolicyFile.Line> overrides;
        /** Every key as written, after the argument's overrides, in file order. */
        final Map<String, String> settings;
        /** Where each of those keys was written: "FILE:LINE", or "agent argument". */
        final Map<String, String> origins;
        /** {@code metrics}: null for no endpoint. */
        final MetricsAddress metrics;

        Read(Mode mode, long reloadMillis, String classCache, Path file, List<PolicyFile.Line> overrides,
             Map<String, String> settings, Map<String, String> origins, MetricsAddress metrics) {
            this.mode = mode;
            this.reloadMillis = reloadMillis;
            this.classCache = classCache;
            this.file = file;
            this.overrides = overrides;
            this.settings = settings;
            this.origins = origins;
            this.metrics = metrics;
        }
    }

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
        this(enabled, reportPath, policies, source, stateFile, store, Read.NONE);
    }

    AgentConfig(boolean enabled, String reportPath, Policies policies, String source, StateFile stateFile,
            StoreSettings store, Read read) {
        this.read = read;
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

    /**
     * The defaults, standing in for a policy file that could not be read ({@link BadPolicy}): the
     * start-up line, JMX and {@code status} name the problem as where the policies came from.
     */
    public static AgentConfig defaultsAfter(String problem) {
        return new AgentConfig(true, null, Policies.defaultsOnly(Policy.DEFAULTS), DEFAULTS_AFTER + problem);
    }

    /** How the source of {@link #defaultsAfter} begins. */
    public static final String DEFAULTS_AFTER = "the built-in defaults, since ";

    /** The same, switched on or off by {@code switchedBy}, which the start-up line then names. */
    AgentConfig withEnabled(boolean on, String switchedBy) {
        return new AgentConfig(on, reportPath, policies, source + ", " + switchedBy, stateFile, store, read);
    }

    /**
     * {@code mode}: the mode of every host whose policy sets none, at start; it can be switched at
     * run time. Enforce unless the file or argument says observe.
     */
    public Mode mode() {
        return read.mode;
    }

    /** {@code reload}: how often the policy file is looked at for changes; 0 for never ({@code reload = off}). Default 5 s. */
    public long reloadMillis() {
        return read.reloadMillis;
    }

    /**
     * {@code class-cache}: where the client classes as changed are kept for the next run; null when
     * not written (the default place, under the user's cache directory), {@value #CLASS_CACHE_OFF} for none.
     */
    public String classCache() {
        return read.classCache;
    }

    /** {@code metrics}: where the Prometheus endpoint listens; null (the default) for none. */
    public MetricsAddress metrics() {
        return read.metrics;
    }

    /** The {@code class-cache} value that keeps none. */
    public static final String CLASS_CACHE_OFF = "off";

    /** {@code log-file}, {@code log-format}, {@code log-level}: where the log goes, and how. */
    public LogSettings log() {
        return LogSettings.read(read.settings);
    }

    /** The policy file, or null when everything came from the argument. */
    public Path policyFile() {
        return read.file;
    }

    List<PolicyFile.Line> overrides() {
        return read.overrides;
    }

    /** Every key as written, file and argument together, in order: what a reload compares. */
    Map<String, String> settings() {
        return read.settings;
    }

    /** Where the agent-wide mode came from, for {@code policy PID}: its line, or the built-in default. */
    public String modeOrigin() {
        String origin = origin(PolicyFile.MODE);
        return origin != null ? origin : PolicyDescription.BUILT_IN;
    }

    /** Where {@code key} was written ("FILE:LINE", or "agent argument"); null when it was not. */
    public String origin(String key) {
        return read.origins.get(key);
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
