package dev.retryafter.agent.config;

import dev.retryafter.agent.io.SmallFile;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Whether the agent is switched off, read from the environment, the agent argument and the policy
 * file's {@code enabled} line alone, in {@link AgentArguments}' order (the environment over the
 * argument over the file). No policy is read, and no class of the engine, Byte Buddy or the logger
 * is loaded: off costs little more than opening the jar. What it cannot read plainly (a malformed
 * argument, an unreadable file, {@code enabled = maybe}) it leaves to the full read, which reports it.
 *
 * <p>Strings are joined with {@link StringBuilder} and files read with {@code java.io} here: on
 * Java 9 and later bytecode the first {@code +} of strings bootstraps {@code invokedynamic}, and
 * {@code Files} brings the NIO channels, together some tens of milliseconds before main.
 */
public final class OffSwitch {

    private OffSwitch() {
    }

    /** What switched the agent off, for its one line; null when it is on, or only the full read can tell. */
    public static String offBy(String argument, Map<String, String> environment) {
        try {
            return read(argument, environment);
        } catch (ConfigException | IOException | RuntimeException e) {
            return null;
        }
    }

    private static String read(String argument, Map<String, String> environment) throws ConfigException, IOException {
        String variable = environment.get(AgentArguments.ENABLED_VARIABLE);
        if (variable != null && !variable.trim().isEmpty()) {
            return Values.bool(variable) ? null : "environment variable " + AgentArguments.ENABLED_VARIABLE;
        }
        String file = null;
        String enabled = null;
        for (PolicyFile.Line pair : PolicyLines.argumentPairs(argument)) {
            if (pair.key == null) {
                return null;
            }
            if (pair.key.equals(AgentArguments.CONFIG)) {
                file = pair.value;
            } else if (pair.key.equals(PolicyFile.ENABLED)) {
                enabled = pair.value; // the last one, as the full read takes it
            }
        }
        if (enabled != null) {
            return Values.bool(enabled) ? null : "agent argument";
        }
        if (file == null) {
            return null;
        }
        List<PolicyFile.Line> lines = PolicyLines.parse(file, read(file));
        for (PolicyFile.Line line : lines) {
            if (line.key.equals(PolicyFile.ENABLED)) {
                return Values.bool(line.value) ? null : new StringBuilder(file).append(':').append(line.number).toString();
            }
        }
        return null;
    }

    private static String read(String file) throws IOException {
        return new String(SmallFile.read(new File(file), PolicyFile.MAX_BYTES), StandardCharsets.UTF_8);
    }
}
