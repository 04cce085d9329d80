package dev.retryafter.agent.config;

import dev.retryafter.agent.io.SmallFile;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * What a policy file that cannot be read asks for: by default the agent governs every host on its
 * built-in defaults, because an agent switched off by a typo lets the scraper hammer the very portal
 * it was attached to protect; {@code on-bad-policy = off} keeps the old way, the agent off. The
 * setting is looked for in the raw text, since the file it is in did not parse.
 */
public final class BadPolicy {

    /** The setting, in the file or the agent argument: {@code defaults} (the default) or {@code off}. */
    public static final String KEY = "on-bad-policy";
    static final String DEFAULTS = "defaults";
    static final String OFF = "off";

    private BadPolicy() {
    }

    /** Whether the agent argument, or the file it names, says {@code on-bad-policy = off}. Never throws. */
    public static boolean keepsAgentOff(String argument) {
        try {
            String file = null;
            for (PolicyFile.Line pair : PolicyLines.argumentPairs(argument)) {
                if (pair.key == null) {
                    continue;
                }
                if (pair.key.equals(KEY)) {
                    return pair.value.equalsIgnoreCase(OFF);
                }
                if (pair.key.equals(AgentArguments.CONFIG)) {
                    file = pair.value;
                }
            }
            return file != null && saysOff(new String(SmallFile.read(new File(file), PolicyFile.MAX_BYTES), StandardCharsets.UTF_8));
        } catch (Throwable unreadable) {
            return false; // a file that cannot be read says nothing: the defaults govern
        }
    }

    /** The last {@code on-bad-policy} line of a policy text says {@code off}. */
    static boolean saysOff(String text) {
        boolean off = false;
        for (String raw : text.split("\n")) {
            String line = raw.trim();
            if (!line.startsWith(KEY)) {
                continue;
            }
            String rest = line.substring(KEY.length()).trim();
            if (rest.startsWith("=") || rest.startsWith(":")) {
                String value = rest.substring(1).trim();
                int comment = value.indexOf('#');
                value = (comment >= 0 ? value.substring(0, comment) : value).trim().toLowerCase(Locale.ROOT);
                off = value.equals(OFF);
            }
        }
        return off;
    }
}
