package dev.retryafter.agent.config;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the agent argument, the part after {@code =} in {@code -javaagent:retry-after-agent.jar=...}:
 * <ul>
 *   <li>nothing: every host on the defaults;</li>
 *   <li>a path: the policy file;</li>
 *   <li>{@code key=value} pairs separated by commas, where {@code config=PATH} names the policy
 *       file and every other key overrides the file's value:
 *       {@code config=/etc/scraper/policies.properties,enabled=false}.</li>
 * </ul>
 * A policy's host list in an argument separates hosts with {@code ;}, since commas separate pairs.
 * The environment variable {@value #ENABLED_VARIABLE}, when set, overrides {@code enabled} from both:
 * a deployment whose command line is baked into an image can still switch the agent off.
 */
public final class AgentArguments {

    public static final String ENABLED_VARIABLE = "RETRY_AFTER_AGENT_ENABLED";
    static final String CONFIG = "config";

    private AgentArguments() {
    }

    public static AgentConfig load(String argument, Map<String, String> environment) throws ConfigException {
        Path file = null;
        List<PolicyFile.Line> overrides = new ArrayList<>();
        for (PolicyFile.Line pair : PolicyLines.argumentPairs(argument)) {
            if (pair.key == null) {
                throw new ConfigException(PolicyLines.ARGUMENT, 0, pair.value, "is not key=value (pairs are separated by commas)");
            }
            if (pair.key.equals(CONFIG)) {
                file = Paths.get(pair.value);
            } else {
                overrides.add(pair);
            }
        }
        AgentConfig config = file == null && overrides.isEmpty() ? AgentConfig.defaults() : PolicyFile.read(file, overrides, environment);
        return withEnvironment(config, environment.get(ENABLED_VARIABLE));
    }

    /** Applied last, over file and argument alike, whatever keys they hold. */
    private static AgentConfig withEnvironment(AgentConfig config, String enabled) throws ConfigException {
        if (enabled == null || enabled.trim().isEmpty()) {
            return config;
        }
        try {
            return config.withEnabled(Values.bool(enabled), "environment variable " + ENABLED_VARIABLE);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("environment variable", 0, ENABLED_VARIABLE, e.getMessage());
        }
    }
}
