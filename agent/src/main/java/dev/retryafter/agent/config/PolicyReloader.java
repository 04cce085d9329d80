package dev.retryafter.agent.config;

import dev.retryafter.agent.io.SmallFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Looks at the policy file every few seconds and hands on a valid change. It polls the file's
 * content, read through its path each time, rather than watch it: a Kubernetes ConfigMap is
 * changed by swapping a symlink two directories up, and a bind mount by writing under it, and
 * neither reliably raises a file event. A small file read every 5 s costs nothing worth counting.
 *
 * <p>An edit that does not read is rejected with the usual file:line:key message, said once, and
 * the policy in force stays. Keys that only take effect at start are named in the reload's line,
 * not applied. Called from one thread only (the poller's, or a test's).
 */
public final class PolicyReloader {

    /** What a reload applies to: the engine's policies, and its mode when the file's {@code mode} changed. */
    public interface Target {
        void apply(AgentConfig next, boolean modeChanged);
    }

    private final Path file;
    private final List<PolicyFile.Line> overrides;
    private final Target target;
    private final Consumer<String> info;
    private final Consumer<String> warn;
    private AgentConfig current;
    private byte[] lastSeen;
    private String lastProblem;

    /** {@code config} is what is in force now, read from {@code config.policyFile()}, which must not be null. */
    public PolicyReloader(AgentConfig config, Target target, Consumer<String> info, Consumer<String> warn) {
        this.file = config.policyFile();
        this.overrides = config.overrides();
        this.target = target;
        this.info = info;
        this.warn = warn;
        this.current = config;
        this.lastSeen = contentOrNull();
    }

    /** One look at the file; applies a valid change. Never throws. */
    public void check() {
        byte[] content;
        try {
            content = content();
        } catch (SmallFile.TooLarge e) {
            problem("policy file " + file + " " + PolicyFile.TOO_LARGE + "; the policy in force stays");
            return;
        } catch (IOException e) {
            problem("policy file " + file + " cannot be read; the policy in force stays");
            return;
        }
        if (Arrays.equals(content, lastSeen)) {
            return;
        }
        AgentConfig next;
        try {
            next = PolicyFile.read(file, overrides);
        } catch (ConfigException e) {
            lastSeen = content; // said once, not at every look
            problem(e.getMessage() + "; the edit is rejected and the policy in force stays");
            return;
        } catch (RuntimeException e) {
            lastSeen = content;
            problem("policy file " + file + " could not be reloaded (" + e + "); the policy in force stays");
            return;
        }
        lastProblem = null;
        List<String> changes = changes(current.settings(), next.settings());
        boolean modeChanged = next.mode() != current.mode();
        target.apply(next, modeChanged);
        lastSeen = content; // only once applied: an edit whose applying failed is tried again at the next look
        current = next;
        info.accept(changes.isEmpty() ? "policy file " + file + " changed; no setting did"
                : "policies reloaded from " + file + ": " + String.join("; ", changes));
    }

    private byte[] content() throws IOException {
        return SmallFile.read(file.toFile(), PolicyFile.MAX_BYTES);
    }

    private byte[] contentOrNull() {
        try {
            return content();
        } catch (IOException e) {
            return null;
        }
    }

    /** Said once while the same problem lasts. */
    private void problem(String message) {
        if (!message.equals(lastProblem)) {
            warn.accept(message);
        }
        lastProblem = message;
    }

    /**
     * "policy.slow.max-concurrency 2 -> 1; policy.new added; store changed (takes a restart, not
     * applied)". A policy that appears or goes is named once, not key by key; a store's values are
     * not shown, since one may name where its password is.
     */
    static List<String> changes(Map<String, String> before, Map<String, String> after) {
        Set<String> keys = new LinkedHashSet<>(before.keySet());
        keys.addAll(after.keySet());
        Set<String> policiesBefore = policyNames(before);
        Set<String> policiesAfter = policyNames(after);
        Set<String> namedWhole = new LinkedHashSet<>();
        List<String> changes = new ArrayList<>();
        for (String key : keys) {
            String was = before.get(key);
            String now = after.get(key);
            if (was != null && was.equals(now)) {
                continue;
            }
            String policy = policyOf(key);
            if (policy != null && policiesBefore.contains(policy) != policiesAfter.contains(policy)) {
                if (namedWhole.add(policy)) {
                    changes.add(PolicyFile.POLICY_PREFIX + policy + (policiesAfter.contains(policy) ? " added" : " removed"));
                }
                continue;
            }
            String restart = takesRestart(key) ? " (takes a restart, not applied)" : "";
            if (StoreSettings.KEYS.contains(key)) {
                changes.add(key + " changed" + restart);
            } else if (was == null) {
                changes.add(key + " = " + now + " added" + restart);
            } else if (now == null) {
                changes.add(key + " removed (was " + was + ")" + restart);
            } else {
                changes.add(key + " " + was + " -> " + now + restart);
            }
        }
        return changes;
    }

    /** What is read once, at start: whether the agent is on, where its report, state, store, metrics and log go, and how often to reload. */
    static boolean takesRestart(String key) {
        return key.equals(PolicyFile.ENABLED) || key.equals(PolicyFile.REPORT) || key.equals(PolicyFile.STATE_FILE)
                || key.equals(PolicyFile.STATE_INTERVAL) || key.equals(PolicyFile.STATE_MAX_AGE)
                || key.equals(PolicyFile.RELOAD) || key.equals(PolicyFile.CLASS_CACHE) || key.equals(PolicyFile.METRICS)
                || StoreSettings.KEYS.contains(key) || LogSettings.KEYS.contains(key)
                || key.endsWith("." + StoreSettings.SHARE);
    }

    private static Set<String> policyNames(Map<String, String> settings) {
        Set<String> names = new LinkedHashSet<>();
        for (String key : settings.keySet()) {
            String policy = policyOf(key);
            if (policy != null) {
                names.add(policy);
            }
        }
        return names;
    }

    private static String policyOf(String key) {
        if (!key.startsWith(PolicyFile.POLICY_PREFIX)) {
            return null;
        }
        int dot = key.indexOf('.', PolicyFile.POLICY_PREFIX.length());
        return dot < 0 ? null : key.substring(PolicyFile.POLICY_PREFIX.length(), dot);
    }
}
