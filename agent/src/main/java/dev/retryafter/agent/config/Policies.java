package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The policies of a file, in file order, and the defaults for every other host. The first match wins. */
public final class Policies implements PolicyLookup {

    private final List<Entry> entries;
    private final Policy defaults;
    private final boolean defaultShared;

    Policies(List<Entry> entries, Policy defaults) {
        this(entries, defaults, true);
    }

    Policies(List<Entry> entries, Policy defaults, boolean defaultShared) {
        this.entries = Collections.unmodifiableList(new ArrayList<>(entries));
        this.defaults = defaults;
        this.defaultShared = defaultShared;
    }

    public static Policies defaultsOnly(Policy defaults) {
        return new Policies(Collections.emptyList(), defaults);
    }

    /**
     * Whether what is learned of {@code host:port} goes to the fleet's store ({@code share = fleet},
     * the default) or stays this JVM's ({@code share = local}). The first matching policy decides, as
     * for {@link #policyFor}.
     */
    public boolean isShared(String host, int port) {
        Entry entry = entryFor(host, port);
        return entry != null ? entry.shared : defaultShared;
    }

    @Override
    public Policy policyFor(String host, int port) {
        Entry entry = entryFor(host, port);
        return entry != null ? entry.policy : defaults;
    }

    /** The first policy that names {@code host:port}; null when none does. */
    private Entry entryFor(String host, int port) {
        for (Entry entry : entries) {
            for (HostPattern pattern : entry.hosts) {
                if (pattern.matches(host, port)) {
                    return entry;
                }
            }
        }
        return null;
    }

    public Policy defaults() {
        return defaults;
    }

    /** The policies in file order, for {@link PolicyDescription}. */
    List<Entry> entries() {
        return entries;
    }


    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        for (Entry entry : entries) {
            text.append(entry.policy.name()).append(' ').append(entry.hosts).append("; ");
        }
        return text.append("default for every other host").toString();
    }

    static final class Entry {
        final List<HostPattern> hosts;
        final Policy policy;
        final boolean shared;

        Entry(List<HostPattern> hosts, Policy policy) {
            this(hosts, policy, true);
        }

        Entry(List<HostPattern> hosts, Policy policy, boolean shared) {
            this.hosts = hosts;
            this.policy = policy;
            this.shared = shared;
        }
    }
}
