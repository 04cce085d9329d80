package dev.retryafter.agent.config;

import java.util.Locale;

/**
 * One host entry of a policy: {@code data.kingcounty.gov} (any port), {@code 127.0.0.1:8081},
 * {@code *.piercecountywa.gov} (any subdomain, not the domain itself), {@code [::1]:8080}; a URL stands for
 * its host (and port, if it names one).
 */
final class HostPattern {

    private static final int ANY_PORT = -1;

    private final String host;
    private final boolean subdomains;
    private final int port;
    private final String text;

    private HostPattern(String host, boolean subdomains, int port, String text) {
        this.host = host;
        this.subdomains = subdomains;
        this.port = port;
        this.text = text;
    }

    static HostPattern parse(String entry) {
        String text = withoutUrlParts(entry.trim().toLowerCase(Locale.ROOT));
        String hostPart = text;
        int port = ANY_PORT;
        int colon = text.lastIndexOf(':');
        boolean bracketed = text.startsWith("[");
        if (colon > 0 && (!bracketed || text.lastIndexOf(']') < colon)) {
            hostPart = text.substring(0, colon);
            try {
                port = Integer.parseInt(text.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + entry + "' has a port that is not a number");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("'" + entry + "' has a port outside 1-65535");
            }
        }
        if (!bracketed && hostPart.indexOf(':') >= 0) {
            throw new IllegalArgumentException("'" + entry + "' has an IPv6 address without brackets; write [::1] or [::1]:8080");
        }
        boolean subdomains = hostPart.startsWith("*.");
        String host = subdomains ? hostPart.substring(1) : hostPart; // keeps the leading '.'
        if (host.isEmpty() || host.equals(".") || host.contains("*") || host.contains("/") || host.contains(" ")) {
            throw new IllegalArgumentException("'" + entry + "' is not a host, host:port or *.domain");
        }
        return new HostPattern(host, subdomains, port, text);
    }

    /**
     * A URL names its host: {@code https://data.kingcounty.gov/resource} is {@code data.kingcounty.gov}, its
     * port kept if it names one. Policies are per host, so the path says nothing (README, policy.md).
     */
    private static String withoutUrlParts(String text) {
        int scheme = text.indexOf("://");
        if (scheme < 0) {
            return text;
        }
        String rest = text.substring(scheme + 3);
        int end = rest.length();
        for (char c : new char[] {'/', '?', '#'}) {
            int at = rest.indexOf(c);
            if (at >= 0 && at < end) {
                end = at;
            }
        }
        String authority = rest.substring(0, end);
        int userInfo = authority.lastIndexOf('@');
        return userInfo >= 0 ? authority.substring(userInfo + 1) : authority;
    }

    /** {@code host} is lower case already, as the engine passes it. */
    boolean matches(String host, int port) {
        if (this.port != ANY_PORT && this.port != port) {
            return false;
        }
        return subdomains ? host.endsWith(this.host) && host.length() > this.host.length() : host.equals(this.host);
    }

    @Override
    public String toString() {
        return text;
    }
}
