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
        this.text = resource("prelude") + resource(name);
        this.sha = sha1(text);
    }

    /** EVALSHA, and EVAL when Redis does not have the script (first use, or restarted empty). */
    Object run(Jedis jedis, List<String> keys, List<String> args) {
        try {
            return jedis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return jedis.eval(text, keys, args);
        }
    }

    private static String resource(String name) {
        try (InputStream in = FleetScripts.class.getResourceAsStream(name + ".lua")) {
            if (in == null) {
                throw new IllegalStateException("the agent's jar has no " + name + ".lua");
            }
            return new Scanner(in, "UTF-8").useDelimiter("\\A").next();
        } catch (IOException e) {
            throw new IllegalStateException("reading " + name + ".lua", e);
        }
    }

    private static String sha1(String text) {
        try {
            return String.format("%040x", new BigInteger(1, MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8))));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is in every JDK", e);
        }
    }
}
