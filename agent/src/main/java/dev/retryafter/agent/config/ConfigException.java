package dev.retryafter.agent.config;

/** A policy file or agent argument that cannot be used, with where and what: file, line, key. */
public final class ConfigException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String source;
    private final int line;
    private final String key;

    public ConfigException(String source, int line, String key, String message) {
        super(source + (line > 0 ? ":" + line : "") + (key != null ? ": " + key : "") + ": " + message);
        this.source = source;
        this.line = line;
        this.key = key;
    }

    /** The file, or "agent argument". */
    public String source() {
        return source;
    }

    /** 1-based; 0 when the problem has no line. */
    public int line() {
        return line;
    }

    /** The key as written, or null. */
    public String key() {
        return key;
    }
}
