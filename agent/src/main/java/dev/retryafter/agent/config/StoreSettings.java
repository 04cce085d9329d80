package dev.retryafter.agent.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where what the agent learns is kept: in this JVM (the default), or in a Redis shared by a fleet.
 * <pre>
 * store = redis://scraper@redis.internal:6379/0     # or rediss:// for TLS; memory is the default
 * fleet = county-scrapers                           # the key prefix: two fleets can share one Redis
 * store-password-env = SCRAPER_REDIS_PASSWORD       # or store-password-file = /run/secrets/redis
 * store-timeout = 50ms                              # connect and command timeout
 * policy.king.share = local                         # these hosts stay this JVM's own
 * </pre>
 * The password may also be in the address, but then it is in the command line or the file; from an
 * environment variable or a file it is in neither. It is never shown: {@link #toString()} and every
 * error message leave it out.
 */
public final class StoreSettings {

    static final String STORE = "store";
    static final String FLEET = "fleet";
    static final String PASSWORD_ENV = "store-password-env";
    static final String PASSWORD_FILE = "store-password-file";
    static final String TIMEOUT = "store-timeout";
    /** The policy setting: {@code share = fleet} (the default) or {@code local}. */
    static final String SHARE = "share";

    static final List<String> KEYS = Collections.unmodifiableList(Arrays.asList(STORE, FLEET, PASSWORD_ENV, PASSWORD_FILE, TIMEOUT));

    public static final String DEFAULT_FLEET = "default";
    /** Fleet names go inside a hash tag and a key: no braces, no spaces. */
    private static final Pattern FLEET_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final StoreSettings IN_MEMORY = new StoreSettings(null, DEFAULT_FLEET, 0);

    private final RedisAddress redis;
    private final String fleet;
    private final int timeoutMillis;

    private StoreSettings(RedisAddress redis, String fleet, int timeoutMillis) {
        this.redis = redis;
        this.fleet = fleet;
        this.timeoutMillis = timeoutMillis;
    }

    public static StoreSettings inMemory() {
        return IN_MEMORY;
    }

    /** True when the knowledge is shared on Redis. */
    public boolean isShared() {
        return redis != null;
    }

    /** The Redis, with its password; null when in memory. */
    public RedisAddress redis() {
        return redis;
    }

    public String fleet() {
        return fleet;
    }

    public int timeoutMillis() {
        return timeoutMillis;
    }

    /** {@code memory}, or {@code redis://host:port fleet NAME}: never the password. */
    @Override
    public String toString() {
        return redis == null ? "memory" : redis + " fleet " + fleet;
    }

    /** Throws IllegalArgumentException, with a message fit for the user, for a name that cannot be a key. */
    public static String checkedFleet(String fleet) {
        if (fleet == null || !FLEET_NAME.matcher(fleet).matches()) {
            throw new IllegalArgumentException("'" + fleet + "' is not a fleet name; use letters, digits, '.', '_' and '-', at most 64");
        }
        return fleet;
    }

    /** Reads the store's keys, given as {@link #KEYS} name them; the password from where they say. */
    static StoreSettings read(Map<String, PolicyFile.Line> lines, Map<String, String> environment) throws ConfigException {
        PolicyFile.Line store = lines.get(STORE);
        if (store == null || store.value.isEmpty() || store.value.trim().equalsIgnoreCase("memory")) {
            for (String key : KEYS) {
                if (!key.equals(STORE) && lines.containsKey(key)) {
                    throw lines.get(key).error("is set, but the store is in memory; add store = redis://host:port");
                }
            }
            return IN_MEMORY;
        }
        RedisAddress address;
        try {
            address = RedisAddress.parse(store.value);
        } catch (IllegalArgumentException e) {
            throw store.error(e.getMessage()); // the address's own message, which never repeats it
        }
        PolicyFile.Line env = lines.get(PASSWORD_ENV);
        PolicyFile.Line file = lines.get(PASSWORD_FILE);
        if (env != null && file != null) {
            throw file.error("the password comes from " + PASSWORD_ENV + " already; set one of the two");
        }
        PolicyFile.Line from = env != null ? env : file;
        if (from != null && address.hasPassword()) {
            throw from.error("the store's address has a password already; set it in one place");
        }
        if (env != null) {
            String password = environment.get(env.value);
            if (password == null || password.isEmpty()) {
                throw env.error("names the environment variable '" + env.value + "', which is not set");
            }
            address = address.withPassword(password);
        } else if (file != null) {
            address = address.withPassword(passwordFile(file));
        }
        String fleet = DEFAULT_FLEET;
        PolicyFile.Line fleetLine = lines.get(FLEET);
        if (fleetLine != null) {
            try {
                fleet = checkedFleet(fleetLine.value);
            } catch (IllegalArgumentException e) {
                throw fleetLine.error(e.getMessage());
            }
        }
        int timeout = 50;
        PolicyFile.Line timeoutLine = lines.get(TIMEOUT);
        if (timeoutLine != null) {
            long millis;
            try {
                millis = Values.durationMillis(timeoutLine.value);
            } catch (IllegalArgumentException e) {
                throw timeoutLine.error(e.getMessage());
            }
            if (millis < 1 || millis > 60_000) {
                throw timeoutLine.error("must lie between 1ms and 60s; a request may wait this long on a Redis that stopped answering");
            }
            timeout = (int) millis;
        }
        return new StoreSettings(address, fleet, timeout);
    }

    /** {@code fleet} (the default) or {@code local}: whether a policy's hosts are the fleet's. */
    static boolean shared(PolicyFile.Line line) throws ConfigException {
        String value = line.value.trim();
        if (value.equalsIgnoreCase("fleet")) {
            return true;
        }
        if (value.equalsIgnoreCase("local")) {
            return false;
        }
        throw line.error("'" + line.value + "' is not fleet or local");
    }

    private static String passwordFile(PolicyFile.Line line) throws ConfigException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(Paths.get(line.value));
        } catch (IOException | RuntimeException e) {
            throw line.error("cannot be read (" + e.getClass().getSimpleName() + ")");
        }
        String password = new String(bytes, StandardCharsets.UTF_8);
        // A secret written by echo or an editor ends in a newline that is not part of it.
        while (password.endsWith("\n") || password.endsWith("\r")) {
            password = password.substring(0, password.length() - 1);
        }
        if (password.isEmpty()) {
            throw line.error("is empty");
        }
        return password;
    }
}
