package dev.retryafter.agent.engine;

import java.util.Arrays;

/**
 * How the engine treats the hosts of one policy. Immutable and threadsafe; build one with
 * {@link #builder()}, which checks every value and names the setting it rejects.
 */
public final class Policy {

    /** Every setting at its default: what a host gets when no policy names it. */
    public static final Policy DEFAULTS = builder().build();

    private final String name;
    private final long minSleepMillis;
    private final long maxSleepMillis;
    private final int maxAttempts;
    private final int maxConcurrency;
    private final long backoffBaseMillis;
    private final long backoffCapMillis;
    private final long windowMillis;
    private final boolean windowConfigured;
    private final double headroom;
    private final int[] retryStatuses;
    private final int[] blockStatuses;
    private final Category pinnedCategory;
    private final double startRatePerSecond;
    private final Mode mode;

    private Policy(Builder b) {
        this.name = b.name;
        this.minSleepMillis = b.minSleepMillis;
        this.maxSleepMillis = b.maxSleepMillis;
        this.maxAttempts = b.maxAttempts;
        this.maxConcurrency = b.maxConcurrency;
        this.backoffBaseMillis = b.backoffBaseMillis;
        this.backoffCapMillis = b.backoffCapMillis;
        this.windowMillis = b.windowMillis;
        this.windowConfigured = b.windowConfigured;
        this.headroom = b.headroom;
        this.retryStatuses = b.retryStatuses.clone();
        this.blockStatuses = b.blockStatuses.clone();
        this.pinnedCategory = b.pinnedCategory;
        this.startRatePerSecond = b.startRatePerSecond;
        this.mode = b.mode;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** The policy's name in the file; "default" for the defaults. */
    public String name() {
        return name;
    }

    /** The floor of every wait after a refusal. Default 1 s: a compliant 0 is a hot loop. */
    public long minSleepMillis() {
        return minSleepMillis;
    }

    /** The ceiling of every wait. Default 300 s: a longer wait is a scheduling decision, not a sleep. */
    public long maxSleepMillis() {
        return maxSleepMillis;
    }

    /** Attempts per call, the first included. Default 5; then the last response goes back unchanged. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** Requests in flight to one host at once. Default 8. */
    public int maxConcurrency() {
        return maxConcurrency;
    }

    /** The first backoff bound, doubled per attempt. Default 500 ms. */
    public long backoffBaseMillis() {
        return backoffBaseMillis;
    }

    /** The largest backoff bound before jitter. Default 60 s. */
    public long backoffCapMillis() {
        return backoffCapMillis;
    }

    /**
     * The window the limit is counted in, as the operator believes it: a hint ({@link #windowConfigured()}).
     * Default 60 s, as many portals count per minute; the host's own first period overrules either.
     */
    public long windowMillis() {
        return windowMillis;
    }

    /**
     * Whether the window was set, by a policy or a builder, rather than left at its default: a
     * window someone knows is a hint the engine starts from (a provisional pace at the first refusal,
     * the bound on a first streak's waits) until the host's own first period overrules it; the default
     * is only the bound on a request's last try.
     */
    public boolean windowConfigured() {
        return windowConfigured;
    }

    /** The share of the rate refused the pace falls back to after a refusal. Default 0.9. */
    public double headroom() {
        return headroom;
    }

    /** Whether a response with this status is a refusal to wait on. Default 429 and 503. */
    public boolean isRefusal(int status) {
        for (int s : retryStatuses) {
            if (s == status) {
                return true;
            }
        }
        return false;
    }

    public int[] retryStatuses() {
        return retryStatuses.clone();
    }

    /**
     * Whether a response with this status, coming after refusals, says the client is blocked (a
     * penalty box): the host is held and probed, never retried. Default 403.
     */
    public boolean isBlock(int status) {
        for (int s : blockStatuses) {
            if (s == status) {
                return true;
            }
        }
        return false;
    }

    public int[] blockStatuses() {
        return blockStatuses.clone();
    }

    /**
     * Whether a response with this status was let through by the host's limiter, and so counts for
     * learning its limit: 2xx and 3xx, and 404 and 410, which say the record is gone, not that the
     * client is turned away. Any other status teaches nothing.
     */
    public static boolean isAdmission(int status) {
        return (status >= 200 && status < 400) || status == 404 || status == 410;
    }

    /** A category the operator pinned, or null to characterise the host from what it does. */
    public Category pinnedCategory() {
        return pinnedCategory;
    }

    /** The pace before anything is learned, in requests per second; 0 for none. */
    public double startRatePerSecond() {
        return startRatePerSecond;
    }

    /**
     * The mode the operator set for this policy's hosts, or null (the default) to follow the
     * engine's mode, which can be switched at run time.
     */
    public Mode mode() {
        return mode;
    }

    @Override
    public String toString() {
        return "Policy[" + name + ": min-sleep=" + minSleepMillis + "ms, max-sleep=" + maxSleepMillis
                + "ms, max-attempts=" + maxAttempts + ", max-concurrency=" + maxConcurrency
                + ", backoff-base=" + backoffBaseMillis + "ms, backoff-cap=" + backoffCapMillis
                + "ms, window=" + windowMillis + "ms, headroom=" + headroom
                + ", retry-statuses=" + Arrays.toString(retryStatuses) + ", block-statuses=" + Arrays.toString(blockStatuses)
                + ", category=" + (pinnedCategory == null ? "auto" : pinnedCategory.label())
                + ", rate=" + startRatePerSecond + "/s" + (mode == null ? "" : ", mode=" + mode.label()) + "]";
    }

    /** A value that no policy may hold, with the setting's name as the policy file spells it. */
    public static final class InvalidSetting extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final String setting;

        InvalidSetting(String setting, String message) {
            super(setting + ": " + message);
            this.setting = setting;
        }

        public String setting() {
            return setting;
        }
    }

    /** Mutable and not threadsafe; {@link #build()} checks and copies. */
    public static final class Builder {
        private String name = "default";
        private long minSleepMillis = 1_000;
        private long maxSleepMillis = 300_000;
        private int maxAttempts = 5;
        private int maxConcurrency = 8;
        private long backoffBaseMillis = 500;
        private long backoffCapMillis = 60_000;
        private long windowMillis = 60_000;
        private boolean windowConfigured;
        private double headroom = 0.9;
        private int[] retryStatuses = {429, 503};
        private int[] blockStatuses = {403};
        private Category pinnedCategory;
        private double startRatePerSecond;
        private Mode mode;

        private Builder() {
        }

        private Builder(Policy p) {
            name = p.name;
            minSleepMillis = p.minSleepMillis;
            maxSleepMillis = p.maxSleepMillis;
            maxAttempts = p.maxAttempts;
            maxConcurrency = p.maxConcurrency;
            backoffBaseMillis = p.backoffBaseMillis;
            backoffCapMillis = p.backoffCapMillis;
            windowMillis = p.windowMillis;
            windowConfigured = p.windowConfigured;
            headroom = p.headroom;
            retryStatuses = p.retryStatuses.clone();
            blockStatuses = p.blockStatuses.clone();
            pinnedCategory = p.pinnedCategory;
            startRatePerSecond = p.startRatePerSecond;
            mode = p.mode;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder minSleepMillis(long millis) {
            this.minSleepMillis = millis;
            return this;
        }

        public Builder maxSleepMillis(long millis) {
            this.maxSleepMillis = millis;
            return this;
        }

        public Builder maxAttempts(int attempts) {
            this.maxAttempts = attempts;
            return this;
        }

        public Builder maxConcurrency(int concurrency) {
            this.maxConcurrency = concurrency;
            return this;
        }

        public Builder backoffBaseMillis(long millis) {
            this.backoffBaseMillis = millis;
            return this;
        }

        public Builder backoffCapMillis(long millis) {
            this.backoffCapMillis = millis;
            return this;
        }

        public Builder windowMillis(long millis) {
            this.windowMillis = millis;
            this.windowConfigured = true;
            return this;
        }

        public Builder headroom(double headroom) {
            this.headroom = headroom;
            return this;
        }

        public Builder retryStatuses(int... statuses) {
            this.retryStatuses = statuses.clone();
            return this;
        }

        /** None: no status is a block. */
        public Builder blockStatuses(int... statuses) {
            this.blockStatuses = statuses.clone();
            return this;
        }

        /** Null for auto. */
        public Builder pinnedCategory(Category category) {
            this.pinnedCategory = category;
            return this;
        }

        public Builder startRatePerSecond(double rate) {
            this.startRatePerSecond = rate;
            return this;
        }

        /** Null to follow the engine's mode. */
        public Builder mode(Mode mode) {
            this.mode = mode;
            return this;
        }

        public Policy build() {
            require(minSleepMillis > 0, "min-sleep", "must be above zero: a zero floor allows a hot request loop");
            require(maxSleepMillis >= minSleepMillis, "max-sleep", "must not be below min-sleep (" + minSleepMillis + "ms)");
            require(maxAttempts >= 1, "max-attempts", "must be at least 1");
            require(maxConcurrency >= 1, "max-concurrency", "must be at least 1");
            require(backoffBaseMillis > 0, "backoff-base", "must be above zero");
            require(backoffCapMillis >= backoffBaseMillis, "backoff-cap", "must not be below backoff-base (" + backoffBaseMillis + "ms)");
            require(windowMillis > 0, "window", "must be above zero");
            require(headroom > 0 && headroom <= 1, "headroom", "must be above 0 and at most 1");
            require(retryStatuses.length > 0, "retry-statuses", "must name at least one status");
            for (int status : retryStatuses) {
                require(status >= 400 && status <= 599, "retry-statuses", status + " is not a 4xx or 5xx status");
            }
            for (int status : blockStatuses) {
                require(status >= 400 && status <= 499, "block-statuses", status + " is not a 4xx status");
                require(!isIn(status, retryStatuses), "block-statuses", status + " is a retry status too");
            }
            require(pinnedCategory != Category.UNKNOWN, "category", "unknown cannot be pinned; use auto");
            require(startRatePerSecond >= 0 && !Double.isInfinite(startRatePerSecond), "rate", "must be a positive rate");
            return new Policy(this);
        }

        private static boolean isIn(int status, int[] statuses) {
            for (int s : statuses) {
                if (s == status) {
                    return true;
                }
            }
            return false;
        }

        private static void require(boolean ok, String setting, String message) {
            if (!ok) {
                throw new InvalidSetting(setting, message);
            }
        }
    }
}
