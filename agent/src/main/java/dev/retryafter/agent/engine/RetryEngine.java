package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.knowledge.HostStateStore;
import dev.retryafter.agent.engine.knowledge.InMemoryHostStateStore;
import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;

import java.util.Collection;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.Function;

/**
 * The decision engine: parses, characterises, sanitises, learns, paces, caps and holds. Plain Java;
 * time, waiting and randomness come in from outside, so every rule runs in virtual time in tests.
 * Threadsafe.
 */
public final class RetryEngine {

    final Clock clock;
    final Sleeper sleeper;
    final Delays delays;
    final DoubleSupplier random;
    final DecisionListener listener;
    /** Where a permit hand-over goes that would otherwise recurse: after no delay, like any other wait's end. */
    private final Executor handOvers;
    private volatile PolicyLookup policies;
    private volatile Mode mode;
    private final HostStateStore store;
    private final KnowledgeStore knowledge;

    private RetryEngine(Builder b) {
        this.clock = b.clock;
        this.sleeper = b.sleeper;
        this.delays = b.delays != null ? b.delays : daemonDelays();
        this.random = b.random;
        this.listener = b.listener;
        this.policies = b.policies;
        this.mode = b.mode;
        final Delays handOverDelays = this.delays;
        this.handOvers = new Executor() {
            @Override
            public void execute(Runnable task) {
                handOverDelays.after(0).thenRun(task);
            }
        };
        this.knowledge = b.knowledge != null ? b.knowledge : new InMemoryKnowledgeStore();
        this.store = b.store != null ? b.store : new InMemoryHostStateStore(InMemoryHostStateStore.DEFAULT_MAX_HOSTS, b.clock);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A new request to {@code host:port}; {@code replayable} is false when its body cannot be sent twice. */
    public Call open(String host, int port, boolean replayable) {
        return new Call(this, host, port, replayable);
    }

    /** The state that stands for {@code key} ({@code host:port}) now, made on first use. */
    HostState stateOf(String key, String host, int port) {
        HostState live = store.live(key); // the common case, without a lambda allocated per request
        if (live != null) {
            return live;
        }
        final PolicyLookup used = policies;
        HostState state = store.stateFor(key, new Function<String, HostState>() { // not a lambda: premain and a first request come this way (see AgentInstaller)
            @Override
            public HostState apply(String k) {
                return new HostState(k, used.policyFor(lowerCase(host), port), clock.millis(), handOvers, knowledge);
            }
        });
        if (used != policies) { // a reload went past this host while it was being made: it moves too
            state.usePolicy(policies.policyFor(lowerCase(host), port), clock.millis());
        }
        return state;
    }

    /**
     * The mode of every host whose policy sets none: the one switch that flips a running JVM
     * between observe and enforce. Each attempt reads it as its turn begins: an attempt under way
     * finishes in the mode it began in; the next one is in the new mode.
     */
    public Mode mode() {
        return mode;
    }

    /** Switches {@link #mode()}; threadsafe, takes effect at the next attempt. */
    public void switchMode(Mode mode) {
        this.mode = Objects.requireNonNull(mode);
        admitWaitersWhereObserved();
    }

    /** Requests queued for a permit under enforce are let go where a host now observes: its traffic is the application's. */
    private void admitWaitersWhereObserved() {
        for (HostState state : store.hosts()) {
            if (modeFor(state.policy()) == Mode.OBSERVE) {
                state.permits().admitAllWaiters();
            }
        }
    }

    /** The mode a host on {@code policy} is in now: the policy's own, or else the engine's. */
    public Mode modeFor(Policy policy) {
        Mode own = policy.mode();
        return own != null ? own : mode;
    }

    /**
     * Replaces the policies (a reloaded file): hosts seen from now on get theirs from {@code next},
     * and each host tracked now moves to its policy in {@code next} for its next requests. What was
     * learned of every host stays.
     */
    public void usePolicies(PolicyLookup next) {
        policies = Objects.requireNonNull(next);
        long now = clock.millis();
        for (HostState state : store.hosts()) {
            String key = state.key();
            int colon = key.lastIndexOf(':');
            state.usePolicy(next.policyFor(key.substring(0, colon), Integer.parseInt(key.substring(colon + 1))), now);
        }
        admitWaitersWhereObserved();
    }

    /** Where what the engine learns of each portal is kept. */
    public KnowledgeStore knowledge() {
        return knowledge;
    }

    /** Every host tracked now. */
    public Collection<HostState> hosts() {
        return store.hosts();
    }

    /** The host tracked as {@code key} ("host:port"), or null. */
    public HostState host(String key) {
        String wanted = lowerCase(key);
        for (HostState host : store.hosts()) {
            if (host.key().equals(wanted)) {
                return host;
            }
        }
        return null;
    }

    /** An operator lifts the hold on {@code key} ("host:port"): false when it was not held or the store cannot. */
    public boolean releaseHold(String key) {
        return knowledge.releaseHold(lowerCase(key), clock.millis());
    }

    /**
     * An operator holds {@code key} ("host:port", tracked) until {@code until}, for {@code reason}: the moment it is
     * held until now (a later hold already in place stands); MIN_VALUE when the host is not tracked.
     */
    public long hold(String key, long until, String reason) {
        HostState state = host(key);
        return state == null ? Long.MIN_VALUE : state.holdByOperator(clock.millis(), until, reason);
    }

    /** An operator drops all this JVM tracks and knows of {@code key}; see {@link HostStateStore#forget}. */
    public boolean forget(String key) {
        return store.forget(lowerCase(key));
    }

    /** How an asynchronous adapter waits on a timer of its own (a refused body's bound): the engine's delay thread. */
    public Delays delays() {
        return delays;
    }

    public long now() {
        return clock.millis();
    }

    /**
     * State is kept per host and port: two portals behind one name are two hosts. The last key built
     * on each thread is reused: a scraper asks the same host again and again, and building the
     * string per request was a tenth of all the allocation on a busy client's happy path.
     */
    static String key(String host, int port) {
        LastKey last = LAST_KEY.get();
        if (last.port == port && host.equals(last.host)) {
            return last.key;
        }
        String key = lowerCase(host) + ':' + port;
        last.host = host;
        last.port = port;
        last.key = key;
        return key;
    }

    private static final ThreadLocal<LastKey> LAST_KEY = new ThreadLocal<LastKey>() {
        @Override
        protected LastKey initialValue() {
            return new LastKey();
        }
    };

    /** One thread's last host, port and key; host and port as the client gave them. */
    private static final class LastKey {
        String host = "";
        int port = -1;
        String key;
    }

    private static String lowerCase(String host) {
        return host.toLowerCase(Locale.ROOT); // returns the same string when already lower case
    }

    private static Delays daemonDelays() {
        return Delays.using(Executors.newSingleThreadScheduledExecutor(new DaemonThreads("retry-after-agent-delays")));
    }

    /** Defaults: the system clock, real sleeps, a daemon scheduler, every host on {@link Policy#DEFAULTS}. */
    public static final class Builder {
        private Clock clock = Clock.system();
        private Sleeper sleeper = Sleeper.SYSTEM;
        private Delays delays;
        private DoubleSupplier random = new DoubleSupplier() {
            @Override
            public double getAsDouble() {
                return ThreadLocalRandom.current().nextDouble();
            }
        };
        private DecisionListener listener = DecisionListener.NoOp.INSTANCE;
        private PolicyLookup policies = PolicyLookup.everyHost(Policy.DEFAULTS);
        private HostStateStore store;
        private KnowledgeStore knowledge;
        private Mode mode = Mode.ENFORCE;

        private Builder() {
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper);
            return this;
        }

        public Builder delays(Delays delays) {
            this.delays = Objects.requireNonNull(delays);
            return this;
        }

        /** Uniform in [0, 1): the jitter. */
        public Builder random(DoubleSupplier random) {
            this.random = Objects.requireNonNull(random);
            return this;
        }

        public Builder listener(DecisionListener listener) {
            this.listener = Objects.requireNonNull(listener);
            return this;
        }

        public Builder policies(PolicyLookup policies) {
            this.policies = Objects.requireNonNull(policies);
            return this;
        }

        public Builder store(HostStateStore store) {
            this.store = Objects.requireNonNull(store);
            return this;
        }

        /** Where knowledge of each portal is kept: in memory unless given (a file, or a store a fleet shares). */
        public Builder knowledge(KnowledgeStore knowledge) {
            this.knowledge = Objects.requireNonNull(knowledge);
            return this;
        }

        /** The mode of hosts whose policy sets none; enforce unless given. */
        public Builder mode(Mode mode) {
            this.mode = Objects.requireNonNull(mode);
            return this;
        }

        public RetryEngine build() {
            return new RetryEngine(this);
        }
    }
}
