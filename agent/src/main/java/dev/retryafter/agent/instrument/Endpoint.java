package dev.retryafter.agent.instrument;

import java.util.Locale;

/** How clients name a host, turned into the engine's host and port. */
public final class Endpoint {

    private Endpoint() {
    }

    /** An explicit port, or the scheme's default. */
    public static int port(String scheme, int port) {
        if (port > 0) {
            return port;
        }
        return "https".equalsIgnoreCase(scheme) ? 443 : 80;
    }

    /** IPv6 literals in brackets, as {@code java.net.URI} gives them and policy files write them. */
    public static String host(String host) {
        if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
            return "[" + host.toLowerCase(Locale.ROOT) + "]";
        }
        return host;
    }
}
