package dev.retryafter.agent.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code key = value} lines of a policy file, each numbered by the physical line its key is
 * written on. Plain text handling only, with no policy or engine class: start-up reads the
 * {@code enabled} line through this before it decides to load anything else.
 */
final class PolicyLines {

    /** Where a setting of the agent argument was written. */
    static final String ARGUMENT = "agent argument";

    private PolicyLines() {
    }

    static List<PolicyFile.Line> parse(String source, String text) throws ConfigException {
        List<PolicyFile.Line> lines = new ArrayList<>();
        Map<String, PolicyFile.Line> seen = new LinkedHashMap<>();
        List<String> physical = physicalLines(text);
        for (int i = 0; i < physical.size(); i++) {
            // The key's line is the first physical line with text: a lone '\' before it holds no key.
            int number = 0;
            StringBuilder logical = new StringBuilder();
            while (true) {
                StringBuilder piece = new StringBuilder(stripComment(physical.get(i)));
                boolean continued = endsWithContinuation(piece) && i + 1 < physical.size();
                if (continued) {
                    piece.setLength(piece.length() - 1);
                }
                String part = logical.length() == 0 ? piece.toString() : piece.toString().trim();
                if (number == 0 && !part.trim().isEmpty()) {
                    number = i + 1;
                }
                logical.append(logical.length() == 0 ? "" : " ").append(part);
                if (!continued) {
                    break;
                }
                i++;
            }
            String content = logical.toString().trim();
            if (content.isEmpty()) {
                continue;
            }
            int separator = separatorIndex(content);
            if (separator < 0) {
                throw new ConfigException(source, number, content, "is not a 'key = value' line");
            }
            String key = content.substring(0, separator).trim();
            String value = content.substring(separator + 1).trim();
            PolicyFile.Line line = new PolicyFile.Line(source, number, key, value);
            PolicyFile.Line earlier = seen.put(key, line);
            if (earlier != null) {
                throw line.error("is set twice; first on line " + earlier.number);
            }
            lines.add(line);
        }
        return lines;
    }

    /**
     * The agent argument's pairs, in order: a path alone is {@code config=PATH}; pairs are separated
     * by commas, and an empty one is passed over. A piece that is not {@code key=value} comes as a line
     * with a null key and the piece, trimmed, as its value: the full read rejects it, the quick looks
     * before it pass it by.
     */
    static List<PolicyFile.Line> argumentPairs(String argument) {
        List<PolicyFile.Line> pairs = new ArrayList<>();
        String text = argument == null ? "" : argument.trim();
        if (!text.isEmpty() && text.indexOf('=') < 0) {
            pairs.add(new PolicyFile.Line(ARGUMENT, 0, AgentArguments.CONFIG, text));
        } else if (!text.isEmpty()) {
            for (String pair : text.split(",")) {
                if (pair.trim().isEmpty()) {
                    continue;
                }
                int equals = pair.indexOf('=');
                pairs.add(equals <= 0 ? new PolicyFile.Line(ARGUMENT, 0, null, pair.trim())
                        : new PolicyFile.Line(ARGUMENT, 0, pair.substring(0, equals).trim(), pair.substring(equals + 1).trim()));
            }
        }
        return pairs;
    }

    /** Split at \r\n, \r or \n, by hand: a regular expression here would be compiled at every start. */
    private static List<String> physicalLines(String text) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\r' || c == '\n') {
                lines.add(text.substring(start, i));
                if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                    i++;
                }
                start = i + 1;
            }
        }
        lines.add(text.substring(start));
        return lines;
    }

    private static String stripComment(String line) {
        String trimmed = line.trim();
        if (trimmed.startsWith("#") || trimmed.startsWith("!")) {
            return "";
        }
        for (int i = 1; i < line.length(); i++) {
            if (line.charAt(i) == '#' && Character.isWhitespace(line.charAt(i - 1))) {
                return line.substring(0, i);
            }
        }
        return line;
    }

    /** Trims trailing white space, then says whether a '\' is left at the end. */
    private static boolean endsWithContinuation(StringBuilder line) {
        int end = line.length();
        while (end > 0 && Character.isWhitespace(line.charAt(end - 1))) {
            end--;
        }
        line.setLength(end);
        return end > 0 && line.charAt(end - 1) == '\\';
    }

    private static int separatorIndex(String content) {
        int equals = content.indexOf('=');
        int colon = content.indexOf(':');
        if (equals < 0) {
            return colon;
        }
        return colon < 0 ? equals : Math.min(equals, colon);
    }
}
