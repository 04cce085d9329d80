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

    /** Null until a file is named, when the agent started on the argument or the defaults alone. */
    private Path file;
    private final List<PolicyFile.Line> overrides;
    private final Target target;
    private final Consumer<String> info;
    private final Consumer<String> warn;
    private AgentConfig current;
    private byte[] lastSeen;
    private String lastProblem;

    /**
     * {@code config} is what is in force now, read from {@code config.policyFile()}; with none, the
     * reloader has nothing to look at until {@link #pointAt} names a file.
     */
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
        if (file != null) {
            look(false, "", true);
        }
    }

    /** The file looked at; null for none. */
    public Path file() {
        return file;
    }

    /**
     * From now on the policies come from {@code next} (with the agent argument's other pairs over it,
     * as at start), if it reads; otherwise the policy and the file in force stay. One line either way,
     * also logged.
     */
    public Result pointAt(Path next, String by) {
        Path before = file;
        byte[] seenBefore = lastSeen;
        file = next;
        lastSeen = null;
        Result result = look(true, by, false);
        if (!result.inForce) {
            file = before;
            lastSeen = seenBefore;
            return result;
        }
        String line = "policies now from " + next + (before == null || before.equals(next) ? "" : " (was " + before + ")") + by
                + (result.changes.isEmpty() ? "; no setting changed" : ": " + result.changes);
        info.accept(line);
        return new Result(true, line, result.changes);
    }

    /**
     * Reads the file now, changed or not, applies it if it is valid, and says in one line what came
     * of it (logged too, with {@code by}, e.g. " (from the command line)"). Never throws.
     */
    public Result reloadNow(String by) {
        if (file == null) {
            return new Result(false, "no policy file to re-read: the policies come from " + current.source() + "; name a file to read one", "");
        }
        Result result = look(true, by, true);
        if (result.inForce && result.changes.isEmpty()) {
            String line = "policy file " + file + " re-read" + by + ": no setting changed";
            info.accept(line);
            return new Result(true, line, "");
        }
        return result;
    }

    /** What a reload asked for came to: whether the file is in force, and the line that says so. */
    public static final class Result {
        public final boolean inForce;
        public final String line;
        /** The changes applied, "; " between them; empty for none. */
        final String changes;

        Result(boolean inForce, String line, String changes) {
            this.inForce = inForce;
            this.line = line;
            this.changes = changes;
        }
    }

    /** The file as it is now, in force: the policies, and what was read with them. */
    public AgentConfig current() {
        return current;
    }

    /**
     * Null when the file has not changed since the last look and the look was not {@code forced};
     * {@code logged}: the change applied is logged here.
     */
    private Result look(boolean forced, String by, boolean logged) {
        byte[] content;
        try {
            content = content();
        } catch (SmallFile.TooLarge e) {
            return problem("policy file " + file + " " + PolicyFile.TOO_LARGE + "; the policy in force stays", forced);
        } catch (IOException e) {
            return problem("policy file " + file + " cannot be read; the policy in force stays", forced);
        }
        if (Arrays.equals(content, lastSeen) && !forced) {
            return null;
        }
        AgentConfig next;
        try {
            next = PolicyFile.read(file, overrides);
        } catch (ConfigException e) {
            lastSeen = content; // said once, not at every look
            return problem(e.getMessage() + "; the edit is rejected and the policy in force stays", forced);
        } catch (RuntimeException e) {
            lastSeen = content;
            return problem("policy file " + file + " could not be reloaded (" + e + "); the policy in force stays", forced);
        }
        lastProblem = null;
        List<String> changes = changes(current.settings(), next.settings());
        boolean modeChanged = next.mode() != current.mode();
        target.apply(next, modeChanged); // also when no setting changed: where each was written may have moved
        lastSeen = content; // only once applied: an edit whose applying failed is tried again at the next look
        current = next;
        String changed = String.join("; ", changes);
        String line = changes.isEmpty() ? "policy file " + file + " changed; no setting did"
                : "policies reloaded from " + file + by + ": " + changed;
        if (logged && !(forced && changes.isEmpty())) {
            info.accept(line);
        }
        return new Result(true, line, changed);
    }

    private byte[] content() throws IOException {
        return SmallFile.read(file.toFile(), PolicyFile.MAX_BYTES);
    }

    private byte[] contentOrNull() {
        if (file == null) {
            return null;
        }
        try {
            return content();
        } catch (IOException e) {
            return null;
        }
    }

    /** Said once while the same problem lasts, unless asked for. */
    private Result problem(String message, boolean forced) {
        if (forced || !message.equals(lastProblem)) {
            warn.accept(message);
        }
        lastProblem = message;
        return new Result(false, message, "");
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
