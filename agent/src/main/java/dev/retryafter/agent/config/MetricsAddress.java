package dev.retryafter.agent.config;

import java.util.Locale;

/**
 * {@code metrics}: where the agent serves its figures for Prometheus to scrape. {@code 9464} alone is
 * {@code 127.0.0.1:9464}; {@code HOST:PORT} (an IPv6 literal in brackets, {@code [::1]:9464}) names
 * the address to bind, which may be another than loopback when written so ({@code 0.0.0.0:9464}).
 * Nothing is resolved here: a name is looked up by the endpoint's own thread, off the start-up path.
 */
public final class MetricsAddress {

    /** The address a bare port binds: only this machine can scrape it. */
    public static final String LOOPBACK = "127.0.0.1";

    private final String host;
    private final int port;

    MetricsAddress(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** The address as written, without brackets: a name, an IPv4 or an IPv6 literal. */
    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** Null for {@code off} or an empty value (no endpoint). */
    static MetricsAddress parse(String text) {
        String value = text.trim();
        if (value.isEmpty() || value.toLowerCase(Locale.ROOT).equals("off")) {
            return null;
        }
        if (value.indexOf('/') >= 0 || value.indexOf(' ') >= 0) {
            throw invalid(text); // a URL, or two values
        }
        String host;
        String port;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0 || close + 1 >= value.length() || value.charAt(close + 1) != ':') {
                throw invalid(text);
            }
            host = value.substring(1, close);
            port = value.substring(close + 2);
        } else {
            int colon = value.lastIndexOf(':');
            if (colon < 0) {
                host = LOOPBACK;
                port = value;
            } else if (value.indexOf(':') != colon) {
                throw new IllegalArgumentException("'" + text + "': write an IPv6 address in brackets, [::1]:9464");
            } else {
                host = value.substring(0, colon);
                port = value.substring(colon + 1);
            }
        }
        if (host.isEmpty()) {
            throw invalid(text);
        }
        return new MetricsAddress(host, port(text, port));
    }

    private static int port(String text, String port) {
        try {
            int number = Integer.parseInt(port.trim());
            if (number >= 1 && number <= 65_535) {
                return number;
            }
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException("'" + text + "' has no port from 1 to 65535; write 127.0.0.1:9464, or off");
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("'" + text + "' is not an address and port; write 127.0.0.1:9464, or off");
    }

    /** {@code 127.0.0.1:9464}, {@code [::1]:9464}: as an address is written in a URL. */
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
