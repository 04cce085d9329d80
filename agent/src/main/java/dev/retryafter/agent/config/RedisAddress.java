package dev.retryafter.agent.config;

import java.io.UnsupportedEncodingException;
import java.net.URLDecoder;
import java.util.Locale;

/**
 * Where the fleet's Redis is: {@code redis://[user[:password]@]host:port[/db]}, or {@code rediss://}
 * for TLS. The password is kept, never shown: {@link #toString()} and every message this class
 * writes leave it out, so the address can be logged as it is.
 */
public final class RedisAddress {

    private final boolean tls;
    private final String user;
    private final String password;
    private final String host;
    private final int port;
    private final int database;

    private RedisAddress(boolean tls, String user, String password, String host, int port, int database) {
        this.tls = tls;
        this.user = user;
        this.password = password;
        this.host = host;
        this.port = port;
        this.database = database;
    }

    /**
     * Reads {@code text}. Throws IllegalArgumentException with a message fit for the user, which
     * never repeats the text: it may hold a password.
     */
    public static RedisAddress parse(String text) {
        String s = text.trim();
        String lower = s.toLowerCase(Locale.ROOT);
        boolean tls = lower.startsWith("rediss://");
        if (!tls && !lower.startsWith("redis://")) {
            throw new IllegalArgumentException("is not a Redis address; write redis://host:port, rediss://host:port "
                    + "or redis://user@host:port/db");
        }
        s = s.substring(tls ? "rediss://".length() : "redis://".length());
        String user = null;
        String password = null;
        int at = s.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = s.substring(0, at);
            s = s.substring(at + 1);
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1));
            user = user.isEmpty() ? null : user; // redis://:password@host is the password alone, as redis-cli reads it
        }
        int slash = s.indexOf('/');
        String database = slash < 0 ? "" : s.substring(slash + 1);
        s = slash < 0 ? s : s.substring(0, slash);
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            throw new IllegalArgumentException("names no host and port; write redis://host:port");
        }
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = number(s.substring(colon + 1), "port");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("has port " + port + ", outside 1-65535");
        }
        return new RedisAddress(tls, user, password, host, port, database.isEmpty() ? 0 : number(database, "database"));
    }

    /** The same address with the password from somewhere else (an environment variable, a file). */
    public RedisAddress withPassword(String newPassword) {
        return new RedisAddress(tls, user, newPassword, host, port, database);
    }

    public boolean tls() {
        return tls;
    }

    /** The ACL user, or null for the default user. */
    public String user() {
        return user;
    }

    /** Null when none was given. Never print it: only the connection reads it. */
    public String password() {
        return password;
    }

    public boolean hasPassword() {
        return password != null;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public int database() {
        return database;
    }

    /** {@code redis://user@host:port/db}: without the password, fit for a log line. */
    @Override
    public String toString() {
        String shownHost = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return (tls ? "rediss://" : "redis://") + (user != null ? user + "@" : "") + shownHost + ":" + port
                + (database != 0 ? "/" + database : "");
    }

    private static int number(String text, String what) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("has a " + what + " that is not a number");
        }
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text.replace("+", "%2B"), "UTF-8");
        } catch (UnsupportedEncodingException | IllegalArgumentException e) {
            throw new IllegalArgumentException("has a user or password that is not URL-encoded");
        }
    }
}
