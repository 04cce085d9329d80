package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.learn.LearnedLimit;
import dev.retryafter.agent.engine.learn.ObservationWindow;
import dev.retryafter.agent.engine.learn.PaceSchedule;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Knowledge in this JVM's memory. Each operation is one atomic update of the host's entry; a host
 * never written costs nothing, and the happy path (nothing owed, no pace) reads without writing.
 * Open for a store that keeps this memory somewhere as well (a state file's), overriding none of it.
 */
public class InMemoryKnowledgeStore implements KnowledgeStore {

    private final ConcurrentHashMap<String, HostKnowledge> hosts = new ConcurrentHashMap<>();
    /** Successes and refusals, for the ceiling: moments of one window, so never part of the knowledge a file keeps. */
    private final ConcurrentHashMap<String, LearnedLimit> counts = new ConcurrentHashMap<>();

    @Override
    public HostKnowledge read(String host) {
        HostKnowledge known = hosts.get(host);
        return known != null ? known : HostKnowledge.NONE;
    }

    @Override
    public long reserveSlot(String host, long now, long intervalMillis, long maxWaitMillis) {
        HostKnowledge known = read(host);
        if (intervalMillis <= 0 && known.nextSlotMillis <= now && known.notBeforeMillis <= now) {
            return 0; // booking now with no interval changes nothing: no write
        }
        long[] wait = new long[1];
        hosts.compute(host, (k, current) -> {
            HostKnowledge base = current != null ? current : HostKnowledge.NONE;
            long slot = Math.min(Math.max(now, Math.max(base.nextSlotMillis, base.notBeforeMillis)), now + maxWaitMillis);
            wait[0] = slot - now;
            return base.withNextSlot(slot + Math.max(0, intervalMillis));
        });
        return wait[0];
    }

    @Override
    public void imposeNotBefore(String host, long moment) {
        update(host, k -> k.withNotBefore(moment));
    }

    @Override
    public void holdUntil(String host, long moment, String reason) {
        update(host, k -> k.withHold(moment, reason));
    }

    @Override
    public void distrustHints(String host, String why) {
        update(host, k -> k.withHintsDistrusted(why));
    }

    @Override
    public OpenStreak recordRefusal(String host, long now, long sentAt, OptionalLong headerMillis, boolean whilePaced) {
        OpenStreak[] streak = new OpenStreak[1];
        update(host, k -> {
            OpenStreak next = k.streak == null
                    ? new OpenStreak(now, headerMillis.orElse(ObservationWindow.NO_HEADER), sentAt, 1, whilePaced)
                    : k.streak.plus(sentAt);
            streak[0] = next;
            return k.withStreak(next).withRetryAfterDistrusted(k.streak == null ? null : k.streak.contradiction(now, sentAt, headerMillis));
        });
        LearnedLimit counted = countsOf(host);
        synchronized (counted) {
            counted.record(now, false);
        }
        return streak[0];
    }

    @Override
    public void recordAdmitted(String host, long now) {
        countsOf(host).recordSuccess(now); // no lock: every success of a busy host comes here, from all its threads
    }

    @Override
    public int ceilingBefore(String host, long refusalAt, long windowMillis) {
        LearnedLimit counted = counts.get(host);
        if (counted == null) {
            return 0;
        }
        synchronized (counted) {
            return counted.ceilingBefore(refusalAt, windowMillis);
        }
    }

    @Override
    public OptionalLong firstAdmitted(String host, long from, long before) {
        LearnedLimit counted = counts.get(host);
        if (counted == null) {
            return OptionalLong.empty();
        }
        synchronized (counted) {
            return counted.firstSuccess(from, before);
        }
    }

    @Override
    public Optional<StreakEnd> recordRecovery(String host, long sentAt) {
        HostKnowledge known = read(host);
        if (known.streak == null || sentAt < known.streak.startedAtMillis()) {
            return Optional.empty(); // the happy path: no write
        }
        StreakEnd[] end = new StreakEnd[1];
        update(host, k -> {
            if (k.streak == null || sentAt < k.streak.startedAtMillis()) {
                return k; // another thread closed it first
            }
            FinishedStreak finished = k.streak.finishedBy(sentAt);
            HostKnowledge after = k.withFinished(finished);
            end[0] = new StreakEnd(finished, k, after);
            return after;
        });
        return Optional.ofNullable(end[0]);
    }

    @Override
    public void learn(String host, long learnedAt, Optional<PaceSchedule> pace, OptionalInt ceiling) {
        update(host, k -> k.withPace(pace.orElse(k.pace), learnedAt, ceiling.orElse(HostKnowledge.NO_CEILING)));
    }

    @Override
    public void forgetCostsBefore(String host, long moment) {
        update(host, k -> k.withCostsSince(moment));
    }

    @Override
    public void merge(String host, HostKnowledge known) {
        update(host, k -> k.mergedWith(known));
    }

    @Override
    public Map<String, HostKnowledge> snapshot() {
        return new HashMap<>(hosts);
    }

    @Override
    public void forget(String host) {
        hosts.remove(host);
        counts.remove(host);
    }

    private LearnedLimit countsOf(String host) {
        LearnedLimit counted = counts.get(host);
        if (counted != null) {
            return counted;
        }
        LearnedLimit made = new LearnedLimit(0); // not computeIfAbsent's lambda: a first request comes this way (see AgentInstaller)
        counted = counts.putIfAbsent(host, made);
        return counted != null ? counted : made;
    }

    @Override
    public boolean releaseHold(String host, long now) {
        boolean[] released = new boolean[1];
        hosts.computeIfPresent(host, (k, current) -> {
            if (!current.isHeldAt(now)) {
                return current;
            }
            released[0] = true;
            return current.withoutHold(now);
        });
        return released[0];
    }

    private void update(String host, java.util.function.UnaryOperator<HostKnowledge> change) {
        hosts.compute(host, (k, current) -> change.apply(current != null ? current : HostKnowledge.NONE));
    }
}
