package dev.retryafter.agent.store.redis;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Objects;
import java.util.Scanner;

/**
 * The fleet store's operations, each one Lua script that Redis runs atomically: {@code NAME.lua}
 * beside this class, after {@code prelude.lua} (the clock, and the count of successes). What each
 * takes and answers is written at its top.
 */
final class FleetScripts {

    static final FleetScripts RESERVE = new FleetScripts("reserve");
    static final FleetScripts REFUSAL = new FleetScripts("refusal");
    static final FleetScripts RECOVERY = new FleetScripts("recovery");
    static final FleetScripts MERGE = new FleetScripts("merge");
    static final FleetScripts READ = new FleetScripts("read");

    final String name;
    final String text;
    final String sha;

    private FleetScripts(String name) {
        this.name = name;
        try {
            this.text = resource("prelude") + resource(name);
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            this.sha = String.format("%040x", new BigInteger(1, digest));
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("reading " + name + ".lua", e);
        }
    }

    /** EVALSHA, and EVAL when Redis does not have the script (first use, or restarted empty). */
    Object run(Jedis jedis, List<String> keys, List<String> args) {
        try {
            return jedis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return jedis.eval(text, keys, args);
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = Objects.requireNonNull(FleetScripts.class.getResourceAsStream(name + ".lua"), name + ".lua")) {
            return new Scanner(in, "UTF-8").useDelimiter("\\A").next();
        }
    }
}
