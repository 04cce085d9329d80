package dev.retryafter.agent.store.redis;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The fleet store's operations, each one Lua script that Redis runs atomically. Every moment is
 * Redis's own ({@code TIME}, in milliseconds): a script takes durations from its caller and answers
 * with durations, so JVMs whose clocks disagree still share one schedule. Every script's last
 * argument names the clock: empty for Redis's own; a moment for tests in virtual time. Moments are stored as
 * whole numbers of milliseconds written with {@code %d}: Lua's default number format would round
 * a 13-digit epoch to 14 significant digits at best.
 */
final class FleetScripts {

    /** Written into every host's hash as {@code v}, for a later version to know what it reads. */
    static final String FORMAT_VERSION = "1";

    private static final String PRELUDE = ""
            + "local now\n"
            + "if ARGV[#ARGV] ~= '' then now = tonumber(ARGV[#ARGV]) else\n"
            + "  local t = redis.call('TIME')\n"
            + "  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
            + "end\n"
            + "local function n(v) return tonumber(v) or 0 end\n"
            + "local function d(x) return string.format('%d', x) end\n"
            // Successes counted in all, and in buckets of server time, for the fleet's ceiling; old buckets
            // pruned only when the hash has grown past two windows, so the usual flush is three commands.
            + "local function flush(hash, key, count, bucketMs, windowMs)\n"
            + "  if count <= 0 then return end\n"
            + "  redis.call('HINCRBY', hash, 'admitted', count)\n"
            + "  local bucket = math.floor(now / bucketMs)\n"
            + "  redis.call('HINCRBY', key, d(bucket), count)\n"
            + "  redis.call('PEXPIRE', key, windowMs * 2 + bucketMs)\n"
            + "  local span = math.ceil(windowMs / bucketMs)\n"
            + "  if redis.call('HLEN', key) > 2 * span + 2 then\n"
            + "    for _, f in ipairs(redis.call('HKEYS', key)) do\n"
            + "      if tonumber(f) < bucket - span - 1 then redis.call('HDEL', key, f) end\n"
            + "    end\n"
            + "  end\n"
            + "end\n";

    /**
     * Virtual scheduling (GCRA): the host's next free slot is {@code next}; a caller gets
     * {@code max(now, next, nb)}, bounded by max-wait, and moves {@code next} one interval past it.
     * All callers share the one schedule, served in the order Redis runs their scripts.
     * KEYS: hash, admitted. ARGV: ttl, interval, max-wait, admitted, bucket, window.
     * Returns {wait, not-before remaining, hold remaining, hold reason}.
     */
    static final FleetScripts RESERVE = new FleetScripts("reserve", PRELUDE
            + "flush(KEYS[1], KEYS[2], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]))\n"
            + "local h = redis.call('HMGET', KEYS[1], 'next', 'nb', 'hold', 'hold-reason')\n"
            + "local nxt, nb, hold = n(h[1]), n(h[2]), n(h[3])\n"
            + "local interval, maxWait = tonumber(ARGV[2]), tonumber(ARGV[3])\n"
            + "local slot = math.min(math.max(now, nxt, nb), now + maxWait)\n"
            + "if interval > 0 then\n"
            + "  redis.call('HSET', KEYS[1], 'next', d(math.max(nxt, slot + interval)), 'v', '" + FORMAT_VERSION + "')\n"
            + "  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))\n"
            + "end\n"
            + "return {slot - now, nb - now, hold - now, h[4] or ''}\n");

    /**
     * A refusal, as the fleet counts it. The ceiling: the successes of every JVM since the window
     * began or the previous refusal, whichever is later (LearnedLimit.ceilingBefore's rule). The
     * streak: the first refusal while none is open opens the fleet's, with its header and pacing;
     * every later one counts into it, whichever JVM saw it.
     * KEYS: hash, admitted. ARGV: ttl, admitted, bucket, window, sent (ago), header ('-' for none), paced (0/1).
     * Returns {ceiling, refusals, first (1/0), streak start (ago), header, last refused sent (ago),
     * streak refusals, paced}.
     */
    static final FleetScripts REFUSAL = new FleetScripts("refusal", PRELUDE
            + "local bucketMs, windowMs = tonumber(ARGV[3]), tonumber(ARGV[4])\n"
            + "flush(KEYS[1], KEYS[2], tonumber(ARGV[2]), bucketMs, windowMs)\n"
            + "local sent = now - tonumber(ARGV[5])\n"
            + "local h = redis.call('HMGET', KEYS[1], 'refused-at', 'admitted', 'admitted-at-refusal', 'streak-start',"
            + " 'streak-header', 'streak-sent', 'streak-refusals', 'streak-paced')\n"
            + "local total = n(h[2])\n"
            + "local ceiling = 0\n"
            + "if h[1] and n(h[1]) >= now - windowMs then\n"
            // Counted exactly since the previous refusal: the running total then and now.
            + "  ceiling = total - n(h[3])\n"
            + "else\n"
            // Over the window, to the bucket: a bucket that began before the window is left out.
            + "  local first = math.ceil((now - windowMs) / bucketMs)\n"
            + "  local all = redis.call('HGETALL', KEYS[2])\n"
            + "  for i = 1, #all, 2 do\n"
            + "    if tonumber(all[i]) >= first then ceiling = ceiling + tonumber(all[i + 1]) end\n"
            + "  end\n"
            + "end\n"
            + "local first, start, header, last, count, paced\n"
            + "if not h[4] then\n"
            + "  first, start, header, last, count, paced = 1, now, ARGV[6], sent, 1, ARGV[7]\n"
            + "  redis.call('HSET', KEYS[1], 'streak-start', d(start), 'streak-header', header, 'streak-sent', d(last),"
            + " 'streak-refusals', count, 'streak-paced', paced)\n"
            + "else\n"
            + "  first, start, header, last, count, paced = 0, n(h[4]), h[5], math.max(n(h[6]), sent), n(h[7]) + 1, h[8]\n"
            + "  redis.call('HSET', KEYS[1], 'streak-sent', d(last), 'streak-refusals', count)\n"
            + "end\n"
            + "redis.call('HSET', KEYS[1], 'refused-at', d(now), 'admitted-at-refusal', d(total), 'v', '"
            + FORMAT_VERSION + "')\n"
            + "local refusals = redis.call('HINCRBY', KEYS[1], 'refusals', 1)\n"
            + "redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))\n"
            + "return {ceiling, refusals, first, now - start, header, now - last, count, paced}\n");

    /**
     * A success, to a request sent {@code sent} ago: if it went out after the fleet's open streak
     * began, the streak is over and joins the finished ones. KEYS: hash, streaks. ARGV: ttl,
     * capacity, sent (ago). Returns {0} when no streak ended, else {1, start (ago), header,
     * last refused (after start), recovered by (after start), paced}.
     */
    static final FleetScripts RECOVERY = new FleetScripts("recovery", PRELUDE
            + "local sent = now - tonumber(ARGV[3])\n"
            + "local h = redis.call('HMGET', KEYS[1], 'streak-start', 'streak-header', 'streak-sent', 'streak-paced')\n"
            + "if not h[1] or sent < n(h[1]) then return {0} end\n"
            + "local start = n(h[1])\n"
            + "local last, by = math.max(0, n(h[3]) - start), sent - start\n"
            + "redis.call('LPUSH', KEYS[2], d(start) .. ' h=' .. h[2] .. ' last=' .. d(last) .. ' by=' .. d(by) .. ' paced=' .. h[4])\n"
            + "redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)\n"
            + "redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[1]))\n"
            + "redis.call('HDEL', KEYS[1], 'streak-start', 'streak-header', 'streak-sent', 'streak-refusals', 'streak-paced')\n"
            + "return {1, now - start, h[2], last, by, h[4]}\n");

    /**
     * Knowledge merged in, as the engine's merge has it, every part optional ('' for none; moments
     * as offsets from now): later moments win; a hold's reason goes with the hold that wins, and no
     * request goes before a hold ends; what was learned later wins (an empty ceiling or rate keeps the
     * fleet's); the first verdict against the hints stands; an open streak replaces the fleet's only
     * when that began earlier or none is open; a finished streak is a bounded append, newest first,
     * and one the fleet has (the same record, begun within a second of it: a merge after an outage)
     * is not added twice. KEYS: hash, streaks. ARGV: ttl, capacity, not-before, next, costs-since,
     * hold, hold reason, learned, ceiling, refused rate, cycle, pace epoch, hints distrusted, streak
     * start, header ('-' for none), last refused sent, refusals, paced (0/1), then for each finished
     * streak, oldest first, its start and its record. Returns 1.
     */
    static final FleetScripts MERGE = new FleetScripts("merge", PRELUDE
            + "local K, L, A = KEYS[1], KEYS[2], ARGV\n"
            + "local function later(field, off)\n"
            + "  if off == '' then return end\n"
            + "  local m, old = now + tonumber(off), tonumber(redis.call('HGET', K, field))\n"
            + "  if old == nil or m > old then redis.call('HSET', K, field, d(m)) end\n"
            + "end\n"
            + "later('nb', A[3]) later('next', A[4]) later('costs-since', A[5])\n"
            + "if A[6] ~= '' then\n"
            + "  local untilMs, hold = now + tonumber(A[6]), n(redis.call('HGET', K, 'hold'))\n"
            + "  if untilMs > hold then\n"
            + "    if hold <= now then redis.call('HINCRBY', K, 'holds', 1) end\n"
            + "    hold = untilMs\n"
            + "    redis.call('HSET', K, 'hold', d(hold), 'hold-reason', A[7])\n"
            + "  end\n"
            + "  later('nb', d(hold - now))\n"
            + "end\n"
            + "if A[8] ~= '' then\n"
            + "  local at, stored = now + tonumber(A[8]), tonumber(redis.call('HGET', K, 'learned-at'))\n"
            + "  if stored == nil or at >= stored then\n"
            + "    if A[9] ~= '' then redis.call('HSET', K, 'ceiling', A[9]) end\n"
            + "    if A[10] ~= '' then redis.call('HSET', K, 'rate', A[10], 'cycle', A[11], 'epoch', d(now + tonumber(A[12]))) end\n"
            + "    redis.call('HSET', K, 'learned-at', d(at))\n"
            + "  end\n"
            + "end\n"
            + "if A[13] ~= '' then redis.call('HSETNX', K, 'hints-distrusted', A[13]) end\n"
            + "if A[14] ~= '' then\n"
            + "  local start, old = now + tonumber(A[14]), redis.call('HGET', K, 'streak-start')\n"
            + "  if not old or n(old) < start then\n"
            + "    redis.call('HSET', K, 'streak-start', d(start), 'streak-header', A[15], 'streak-sent', d(now + tonumber(A[16])),"
            + " 'streak-refusals', A[17], 'streak-paced', A[18])\n"
            + "  end\n"
            + "end\n"
            + "for i = 19, #A - 1, 2 do\n"
            + "  local start, known = now + tonumber(A[i]), false\n"
            + "  for _, e in ipairs(redis.call('LRANGE', L, 0, -1)) do\n"
            + "    local at, rest = string.match(e, '^(%-?%d+) (.*)$')\n"
            + "    if rest == A[i + 1] and math.abs(tonumber(at) - start) < 1000 then known = true end\n"
            + "  end\n"
            + "  if not known then\n"
            + "    redis.call('LPUSH', L, d(start) .. ' ' .. A[i + 1])\n"
            + "    redis.call('LTRIM', L, 0, tonumber(A[2]) - 1)\n"
            + "  end\n"
            + "  redis.call('PEXPIRE', L, tonumber(A[1]))\n"
            + "end\n"
            + "redis.call('HSET', K, 'v', '" + FORMAT_VERSION + "')\n"
            + "local h = redis.call('HMGET', K, 'hold', 'nb')\n"
            + "redis.call('PEXPIRE', K, math.max(tonumber(A[1]), n(h[1]) - now, n(h[2]) - now))\n"
            + "return 1\n");

    /**
     * Everything, carrying the successes counted meanwhile. KEYS: hash, streaks, admitted. ARGV:
     * admitted, bucket, window. Returns {now, the hash's fields and values, the streaks newest first}.
     */
    static final FleetScripts READ = new FleetScripts("read", PRELUDE
            + "flush(KEYS[1], KEYS[3], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))\n"
            + "return {d(now), redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1)}\n");

    final String name;
    final String text;
    final String sha;

    private FleetScripts(String name, String text) {
        this.name = name;
        this.text = text;
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

    private static String sha1(String text) {
        try {
            return String.format("%040x", new BigInteger(1, MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8))));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is in every JDK", e);
        }
    }
}
