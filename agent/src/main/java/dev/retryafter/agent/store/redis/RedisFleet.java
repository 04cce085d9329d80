package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.config.RedisAddress;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.knowledge.FinishedStreak;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.OpenStreak;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.store.fleet.FleetHost;
import dev.retryafter.agent.store.fleet.FleetRefusal;
import dev.retryafter.agent.store.fleet.SharedKnowledge;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A fleet's knowledge on Redis: each operation one script of {@link FleetScripts}, atomic and timed by
 * Redis's clock, through the link's guarded call, its arguments and answers in {@link KnowledgeEncoding}.
 * Keys, under the fleet's hash tag so a cluster keeps a fleet in one slot:
 * {@code retry-after:{FLEET}:host:HOST:PORT} (a hash), {@code ...:streaks} (finished streaks) and
 * {@code ...:admitted} (successes per bucket of server time).
 */
final class RedisFleet implements SharedKnowledge<RedisFleet.Keys> {

    /** One host's keys. */
    static final class Keys {
        final String hash;
        final String streaks;
        final String admitted;

        Keys(String hash) {
            this.hash = hash;
            this.streaks = hash + ":streaks";
            this.admitted = hash + ":admitted";
        }
    }

    final RedisLink link;
    private final String fleet;
    private final Clock clock;
    private final RedisKnowledgeStore.Options options;
    private volatile boolean readLoaded;

    RedisFleet(RedisAddress address, String fleet, Clock clock, RedisKnowledgeStore.Options options, RedisLink.Events events) {
        this.fleet = fleet;
        this.clock = clock;
        this.options = options;
        this.link = new RedisLink(address, options.timeoutMillis, options.steadyMillis, events, RedisLink.REMINDER_MILLIS);
        link.onRestored(() -> readLoaded = false); // a Redis restarted empty has no scripts either
    }

    @Override
    public Keys keys(String host) {
        return new Keys("retry-after:{" + fleet + "}:host:" + host);
    }

    @Override
    public boolean isAvailable() {
        return link.isAvailable();
    }

    @Override
    public void onRestored(Runnable listener) {
        link.onRestored(listener);
    }

    /** {@code reserve.lua}. */
    @Override
    public Long reserve(FleetHost<Keys> h, long now, long intervalMillis, long maxWaitMillis, int pending, long windowMillis) {
        return call(h, FleetScripts.RESERVE, now, (v, base) -> {
            long booked = Math.max(0, KnowledgeEncoding.integer(v.get(0)));
            h.saw(KnowledgeEncoding.reserved(v, base, booked + intervalMillis), true);
            return booked;
        }, Arrays.asList(h.keys.hash, h.keys.admitted), options.ttlMillis, Math.max(0, intervalMillis), Math.max(0, maxWaitMillis),
                pending, bucketMillis(windowMillis), windowMillis);
    }

    /** {@code refusal.lua}. */
    @Override
    public FleetRefusal refusal(FleetHost<Keys> h, long now, long windowMillis, long sentAt, OptionalLong headerMillis, boolean whilePaced,
                                int pending) {
        return call(h, FleetScripts.REFUSAL, now, (v, base) -> new FleetRefusal(now, KnowledgeEncoding.openStreak(v, now),
                        (int) KnowledgeEncoding.integer(v.get(0)), KnowledgeEncoding.integer(v.get(8)), KnowledgeEncoding.integer(v.get(2)) == 1,
                        KnowledgeEncoding.text(v.get(9))),
                Arrays.asList(h.keys.hash, h.keys.admitted), options.ttlMillis, pending, bucketMillis(windowMillis), windowMillis, now - sentAt,
                KnowledgeEncoding.header(headerMillis), KnowledgeEncoding.flag(whilePaced), OpenStreak.HEADER_ROUNDING_MILLIS);
    }

    /** {@code recovery.lua}: empty when the request was sent before the streak began, or another JVM closed it. */
    @Override
    public Optional<FinishedStreak> recovery(FleetHost<Keys> h, long now, long sentAt) {
        return call(h, FleetScripts.RECOVERY, now, (v, base) -> KnowledgeEncoding.integer(v.get(0)) == 0 ? Optional.<FinishedStreak>empty()
                : Optional.of(KnowledgeEncoding.finishedStreak(v, now)), Arrays.asList(h.keys.hash, h.keys.streaks), options.ttlMillis,
                HostKnowledge.MAX_STREAKS, now - sentAt);
    }

    /** {@code merge.lua}. */
    @Override
    public boolean merge(FleetHost<Keys> h, HostKnowledge known, long now) {
        List<Object> args = new ArrayList<>(Arrays.<Object>asList(options.ttlMillis, HostKnowledge.MAX_STREAKS));
        args.addAll(KnowledgeEncoding.mergeArguments(known, now));
        return call(h, FleetScripts.MERGE, now, (v, base) -> Boolean.TRUE, Arrays.asList(h.keys.hash, h.keys.streaks), args.toArray()) != null;
    }

    /** {@code read.lua}. */
    @Override
    public HostKnowledge read(FleetHost<Keys> h, int pending) {
        return call(h, FleetScripts.READ, clock.millis(), KnowledgeEncoding::decode, Arrays.asList(h.keys.hash, h.keys.streaks, h.keys.admitted),
                pending, bucketMillis(h.windowMillis()), h.windowMillis());
    }

    /** {@code read.lua} for each, pipelined: one round trip. */
    @Override
    public List<HostKnowledge> readAll(List<FleetHost<Keys>> due, int[] pending) {
        List<Object> replies = link.call(jedis -> pipelineReads(jedis, due, pending), null, null);
        if (replies == null) {
            return null;
        }
        long after = clock.millis();
        List<HostKnowledge> answers = new ArrayList<>(due.size());
        for (int i = 0; i < due.size(); i++) {
            Object reply = replies.get(i);
            if (reply instanceof JedisDataException) {
                refused(due.get(i), (JedisDataException) reply);
            }
            answers.add(reply == null || reply instanceof JedisDataException ? null : KnowledgeEncoding.decode((List<?>) reply, after));
        }
        return answers;
    }

    @Override
    public void close() {
        link.close();
    }

    /**
     * {@code script} for {@code h} through the link's guarded call, its answer read by {@code answer} (given the
     * reply and this JVM's now as it came); null when unavailable, refused, or unreadable. {@code callerNow} is the
     * scripts' now only when the store is timed by its caller.
     */
    private <T> T call(FleetHost<Keys> h, FleetScripts script, long callerNow, BiFunction<List<?>, Long, T> answer, List<String> keys,
                       Object... args) {
        List<String> argList = new ArrayList<>();
        for (Object arg : args) {
            argList.add(String.valueOf(arg));
        }
        argList.add(clockArgument(callerNow));
        Function<Jedis, Object> command = jedis -> script.run(jedis, keys, argList);
        boolean[] repaired = new boolean[1];
        Object reply = link.call(command, null, error -> repaired[0] = refused(h, error));
        if (repaired[0]) {
            reply = link.call(command, null, error -> refused(h, error)); // once more, on the keys written anew
        }
        if (reply == null) {
            return null;
        }
        try {
            return answer.apply(reply instanceof List ? (List<?>) reply : Collections.emptyList(),
                    options.timedByCaller ? callerNow : clock.millis());
        } catch (RuntimeException e) {
            AgentLog.failure("reading the fleet store's answer to " + script.name, e);
            return null;
        }
    }

    /**
     * Redis refused a command of {@code h}'s for its data. A key of another type in the agent's key space
     * (another writer's, or garbage) is deleted, to be written anew; anything else (out of memory, writes
     * stopped) keeps the host in this JVM for a while. True when keys were deleted.
     */
    private boolean refused(FleetHost<Keys> h, JedisDataException error) {
        if ("WRONGTYPE".equals(RedisLink.code(error)) && link.call(jedis -> deleteWrongTyped(jedis, h.keys), 0, ignored -> { }) > 0) {
            link.refused(error, "a key of the agent's held another type; deleted, to be written anew");
            return true;
        }
        h.keepLocalFor(options.keptLocalMillis);
        link.refused(error, "the hosts it concerns are kept in this JVM's own knowledge meanwhile, asking Redis again every "
                + TimeUnit.MILLISECONDS.toSeconds(options.keptLocalMillis) + " s");
        return false;
    }

    private static int deleteWrongTyped(Jedis jedis, Keys keys) {
        String[][] expected = {{keys.hash, "hash"}, {keys.streaks, "list"}, {keys.admitted, "hash"}};
        int deleted = 0;
        for (String[] key : expected) {
            String type = jedis.type(key[0]);
            if (!"none".equals(type) && !key[1].equals(type)) {
                deleted += (int) jedis.del(key[0]);
            }
        }
        return deleted;
    }

    private List<Object> pipelineReads(Jedis jedis, List<FleetHost<Keys>> due, int[] pending) {
        if (!readLoaded) {
            jedis.scriptLoad(FleetScripts.READ.text);
            readLoaded = true;
        }
        Pipeline pipeline = jedis.pipelined();
        List<Response<Object>> responses = new ArrayList<>(due.size());
        for (int i = 0; i < due.size(); i++) {
            FleetHost<Keys> h = due.get(i);
            responses.add(pipeline.evalsha(FleetScripts.READ.sha, Arrays.asList(h.keys.hash, h.keys.streaks, h.keys.admitted),
                    Arrays.asList(Integer.toString(pending[i]), Long.toString(bucketMillis(h.windowMillis())),
                            Long.toString(h.windowMillis()), clockArgument(clock.millis()))));
        }
        pipeline.sync();
        List<Object> replies = new ArrayList<>(due.size());
        for (Response<Object> response : responses) {
            try {
                replies.add(response.get());
            } catch (JedisNoScriptException e) {
                readLoaded = false; // flushed by someone meanwhile: the next round loads it again
                return null;
            } catch (JedisDataException e) {
                if (RedisLink.isOutage(e)) {
                    throw e;
                }
                replies.add(e); // this host's refusal (out of memory, a key of another type): the others' replies stand
            }
        }
        return replies;
    }

    private String clockArgument(long callerNow) {
        return options.timedByCaller ? Long.toString(callerNow) : "";
    }

    /** A bucket is a two-hundredth of the window, at least 100 ms: fine enough for the ceiling, few enough fields. */
    static long bucketMillis(long windowMillis) {
        return Math.max(100, windowMillis / 200);
    }
}
