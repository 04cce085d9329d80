package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.Policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code policy PID [HOST]} prints: every setting in force, of every policy or of the one that
 * governs a host, and where each came from: the file and line, the agent argument, the policy's
 * {@code default.} line it inherits, the built-in default, or, for the agent's mode, a switch made
 * at run time. No lambdas: this runs in the application's JVM.
 */
public final class PolicyDescription {

    static final String BUILT_IN = "built-in default";
    private static final String DEFAULT_PREFIX = "default.";

    private final AgentConfig config;
    private final Mode agentMode;
    private final String agentModeOrigin;

    /**
     * {@code config} is what is in force; {@code agentMode} the agent-wide mode now, which a switch at
     * run time may have set apart from the file, and {@code agentModeOrigin} where it came from.
     */
    public PolicyDescription(AgentConfig config, Mode agentMode, String agentModeOrigin) {
        this.config = config;
        this.agentMode = agentMode;
        this.agentModeOrigin = agentModeOrigin;
    }

    /**
     * The policies that set their own mode, "name (mode)" with commas between; "default (mode)" when
     * {@code default.mode} is set. A switch of the agent's mode leaves their hosts as they are. Empty for none.
     */
    public static String ownModes(AgentConfig config) {
        StringBuilder names = new StringBuilder();
        for (Policies.Entry entry : config.policies().entries()) {
            if (entry.policy.mode() != null) {
                names.append(names.length() == 0 ? "" : ", ").append(entry.policy.name()).append(" (").append(entry.policy.mode().label()).append(')');
            }
        }
        Mode defaults = config.policies().defaults().mode();
        if (defaults != null) {
            names.append(names.length() == 0 ? "" : ", ").append("default (").append(defaults.label()).append(')');
        }
        return names.toString();
    }

    /** Every policy, in file order, then the defaults every other host gets. */
    public String all() {
        StringBuilder out = new StringBuilder();
        out.append("policies from ").append(config.source()).append("; the agent's mode ").append(agentMode.label())
                .append(" (").append(agentModeOrigin).append(")\n");
        for (Policies.Entry entry : config.policies().entries()) {
            out.append('\n');
            section(out, "policy " + entry.policy.name(), entry);
        }
        out.append('\n');
        section(out, "default (every host no policy names)", null);
        return out.toString();
    }

    /** The policy that governs {@code host} ("host:port", or a host alone: any port), and its settings. */
    public String forHost(String host) {
        String name = host.trim().toLowerCase(Locale.ROOT);
        int port = -1;
        int colon = name.lastIndexOf(':');
        if (colon > 0 && name.lastIndexOf(']') < colon) {
            try {
                port = Integer.parseInt(name.substring(colon + 1));
                name = name.substring(0, colon);
            } catch (NumberFormatException e) {
                // not a port: the whole text is the host
            }
        }
        Policies.Entry governing = null;
        for (Policies.Entry entry : config.policies().entries()) {
            for (HostPattern pattern : entry.hosts) {
                if (governing == null && pattern.matches(name, port)) {
                    governing = entry;
                }
            }
        }
        StringBuilder out = new StringBuilder();
        out.append(host.trim()).append(port < 0 ? " (no port given: only host entries without a port match)" : "")
                .append(governing == null ? " falls under no policy: the defaults govern it" : " falls under policy " + governing.policy.name())
                .append("; policies from ").append(config.source()).append('\n');
        section(out, governing == null ? "default (every host no policy names)" : "policy " + governing.policy.name(), governing);
        return out.toString();
    }

    /** One policy ({@code entry}), or the defaults (null): a heading, then one aligned row per setting. */
    private void section(StringBuilder out, String heading, Policies.Entry entry) {
        out.append(heading).append(":\n");
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"SETTING", "VALUE", "FROM"});
        if (entry != null) {
            String key = PolicyFile.POLICY_PREFIX + entry.policy.name() + ".hosts";
            rows.add(new String[] {"hosts", joined(entry.hosts), where(key)});
        }
        // The settings as the file spells them, in the order policy.md lists them. Not a constant: Setting's
        // lambdas would be linked at the agent's start, when this class is loaded.
        Setting[] settings = {Setting.MIN_SLEEP, Setting.MAX_SLEEP, Setting.MAX_ATTEMPTS, Setting.MAX_CONCURRENCY, Setting.RATE,
                Setting.MODE, Setting.BLOCK_STATUSES, Setting.RETRY_STATUSES, Setting.WINDOW, Setting.HEADROOM, Setting.BACKOFF_BASE,
                Setting.BACKOFF_CAP, Setting.CATEGORY};
        for (Setting setting : settings) {
            rows.add(row(setting, entry));
        }
        int[] widths = new int[2];
        for (String[] row : rows) {
            widths[0] = Math.max(widths[0], row[0].length());
            widths[1] = Math.max(widths[1], row[1].length());
        }
        for (String[] row : rows) {
            out.append("  ").append(pad(row[0], widths[0])).append("  ").append(pad(row[1], widths[1])).append("  ")
                    .append(row[2]).append('\n');
        }
    }

    private String[] row(Setting setting, Policies.Entry entry) {
        Map<String, String> written = config.settings();
        String own = entry == null ? null : PolicyFile.POLICY_PREFIX + entry.policy.name() + "." + setting.key();
        String inherited = DEFAULT_PREFIX + setting.key();
        if (own != null && written.containsKey(own)) {
            return new String[] {setting.key(), written.get(own), where(own)};
        }
        if (written.containsKey(inherited)) {
            return new String[] {setting.key(), written.get(inherited), where(inherited) + (entry == null ? "" : " (" + inherited + ")")};
        }
        if (setting == Setting.MODE) {
            return new String[] {setting.key(), agentMode.label(), "the agent's mode: " + agentModeOrigin};
        }
        return new String[] {setting.key(), builtIn(setting), BUILT_IN};
    }

    private String where(String key) {
        String origin = config.origin(key);
        return origin != null ? origin : "(not recorded)";
    }

    /** A built-in default as the file would spell it. */
    static String builtIn(Setting setting) {
        Policy p = Policy.DEFAULTS;
        switch (setting) {
            case MIN_SLEEP:
                return Values.formatMillis(p.minSleepMillis());
            case MAX_SLEEP:
                return Values.formatMillis(p.maxSleepMillis());
            case MAX_ATTEMPTS:
                return Integer.toString(p.maxAttempts());
            case MAX_CONCURRENCY:
                return Integer.toString(p.maxConcurrency());
            case BACKOFF_BASE:
                return Values.formatMillis(p.backoffBaseMillis());
            case BACKOFF_CAP:
                return Values.formatMillis(p.backoffCapMillis());
            case WINDOW:
                return "learned";
            case HEADROOM:
                return Double.toString(p.headroom());
            case RETRY_STATUSES:
                return statuses(p.retryStatuses());
            case BLOCK_STATUSES:
                return p.blockStatuses().length == 0 ? "none" : statuses(p.blockStatuses());
            case CATEGORY:
                return "auto";
            case RATE:
                return "none";
            default:
                return "-";
        }
    }

    private static String statuses(int[] statuses) {
        StringBuilder text = new StringBuilder();
        for (int status : statuses) {
            text.append(text.length() == 0 ? "" : ", ").append(status);
        }
        return text.toString();
    }

    private static String joined(List<HostPattern> hosts) {
        StringBuilder text = new StringBuilder();
        for (HostPattern host : hosts) {
            text.append(text.length() == 0 ? "" : ", ").append(host);
        }
        return text.toString();
    }

    private static String pad(String text, int width) {
        StringBuilder padded = new StringBuilder(text);
        while (padded.length() < width) {
            padded.append(' ');
        }
        return padded.toString();
    }
}
