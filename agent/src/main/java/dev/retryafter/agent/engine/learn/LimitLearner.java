package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.knowledge.FinishedStreak;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.engine.knowledge.Learned;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What one host's traffic teaches of its limit, with no window configured: the length of its first period
 * (the window) and the rate it let through then, at the end of its first streak; the rate it refused, at the
 * first refusal of every later streak. Each reading restarts the host's pace ({@link AdaptivePace}) in the
 * store. Where the learning of a limit is, for a reader: the host's state calls it and applies nothing else.
 *
 * <p>The moments it keeps (the first request sent and let through) and the window learned are this JVM's; a
 * window another run or another JVM of the fleet learned goes with the pace, and is adopted from the store.
 */
public final class LimitLearner {

    private final String key;
    private final KnowledgeStore store;
    /** When this JVM first sent to the host: where the limit's first period began, as far as it can tell. */
    private volatile long firstSentMillis = HostKnowledge.NO_MOMENT;
    /** When this JVM first had an answer from the host that let a request through: how late its first request reached it. */
    private volatile long firstAdmittedMillis = HostKnowledge.NO_MOMENT;
    /**
     * The length of the host's first period, learned at the end of its first streak ({@link RefusedRate#firstPeriod});
     * 0 until then, when the policy's window stands in for it.
     */
    private volatile long learnedWindowMillis;
    /** The window was learned from a first period whose end the last tries overshot: it may be much longer than the host's. */
    private volatile boolean learnedWindowOvershot;
    /** How many refusals the last streak came to, echoes included: a long one makes probing dearer. */
    private volatile int lastStreakRefusals = 1;

    public LimitLearner(String key, KnowledgeStore store, HostKnowledge known) {
        this.key = key;
        this.store = store;
        adoptWindow(known);
    }

    /**
     * A window the host taught an earlier run or another JVM of the fleet (it goes with the pace) is this
     * learner's too: a run that starts paced is refused late, and would read the time to it as the window.
     */
    public void adoptWindow(HostKnowledge known) {
        if (learnedWindowMillis == 0 && known.pace != null && known.pace.windowMillis() > 0) {
            learnedWindowMillis = known.pace.windowMillis();
        }
    }

    /** A request went at {@code now}: the first one begins the limit's first period. */
    public void onSent(long now) {
        if (firstSentMillis == HostKnowledge.NO_MOMENT) {
            firstSentMillis = now; // a race writes a moment a few microseconds later: no matter
        }
    }

    /** The host let a request through at {@code now}. */
    public void onAdmitted(long now) {
        if (firstAdmittedMillis == HostKnowledge.NO_MOMENT) {
            firstAdmittedMillis = now; // a race writes a moment a few microseconds later: no matter
        }
    }

    /**
     * When the limit's first period began, as far as this JVM can tell, a request having lately taken
     * {@code roundTripMillis} there and back: its first request, or, where the first answer that let one through came
     * later than a round trip after it (a cold client's connection), that answer less the round trip.
     * {@link HostKnowledge#NO_MOMENT} before anything was let through. A fleet's first period may have begun earlier,
     * with another JVM's request (the first period's reading asks the store for that); this is what this JVM saw.
     */
    public long periodStartedAtMillis(long roundTripMillis) {
        long firstAdmitted = firstAdmittedMillis;
        // Nothing let through yet (a late start, refused from the first request): no period began that this JVM saw.
        return firstAdmitted == HostKnowledge.NO_MOMENT ? HostKnowledge.NO_MOMENT : Math.max(firstSentMillis, firstAdmitted - roundTripMillis);
    }

    /** The window learned; 0 while none was. */
    public long learnedWindowMillis() {
        return learnedWindowMillis;
    }

    /** How long the host's limit takes to have room again: learned, else the policy's window. */
    public long windowMillis(Policy policy) {
        long learned = learnedWindowMillis;
        return learned > 0 ? learned : policy.windowMillis();
    }

    /**
     * The window a streak's waits are bounded by: as learned, else as configured (a hint); 0 while
     * neither, when the waits look for the window's end themselves.
     */
    public long knownWindowMillis(Policy policy) {
        long learned = learnedWindowMillis;
        return learned > 0 ? learned : policy.windowConfigured() ? policy.windowMillis() : 0;
    }

    /** {@code pace}'s curve as the store keeps it, with the window this host taught, if it taught one. */
    public Optional<PaceSchedule> scheduleOf(AdaptivePace pace) {
        PaceSchedule schedule = pace.schedule();
        long window = learnedWindowMillis;
        return Optional.ofNullable(schedule == null || window == 0 ? schedule : schedule.inWindow(window));
    }

    /**
     * A streak ended; {@code nextStreakOpen} when a refusal since opened the next one, which learned from it.
     * Returns what the host's first period taught, or null.
     */
    public Learned onStreakEnded(Policy policy, long now, KnowledgeStore.StreakEnd end, PaceSchedule pace, boolean nextStreakOpen) {
        if (end.before().streak != null) {
            lastStreakRefusals = end.before().streak.refusals();
        }
        Learned first = nextStreakOpen ? null : firstPeriod(policy, now, end, pace);
        if (first != null && !policy.windowConfigured()) {
            // The first streak is the search for the window's end: its refusals are every worker's tries at it, not what a
            // probe refused will cost, so it counts as one request's tries at most. Four workers' ten refusals made the next
            // cycle 13 minutes long, and a 20 s window read at 0.96 of its limit stayed there (the limiter benchmark's 20 s / 40
            // on four workers 0.94 -> 0.97; the ingestion benchmark's past-date portal on eight 0.9% -> 1.9% refused).
            lastStreakRefusals = Math.min(lastStreakRefusals, policy.maxAttempts());
        }
        return first;
    }

    /**
     * The end of the host's first streak says how long its first period lasted and how much it let
     * through: the first reading of the limit that needs no window ({@link RefusedRate#firstPeriod}).
     * The pace restarts from it; later streaks correct it.
     */
    private Learned firstPeriod(Policy policy, long now, KnowledgeStore.StreakEnd end, PaceSchedule pace) {
        adoptWindow(end.before());
        if (learnedWindowMillis > 0 || firstSentMillis == HostKnowledge.NO_MOMENT) {
            return null;
        }
        // The period begins at the first request, or where the last streak of this run that taught nothing ended (a
        // late start: the first period was someone else's, all of it refused). A store's streaks from before this run
        // (a state file, a fleet) say nothing of when this run's period began.
        FinishedStreak earlier = null;
        for (FinishedStreak streak : end.before().finishedStreaks()) { // newest first
            if (streak.startedAtMillis() >= firstSentMillis) {
                earlier = streak;
                break;
            }
        }
        long firstSent = earlier == null ? firstSentMillis : earlier.startedAtMillis() + earlier.recoveredByMillis();
        long streakStart = end.streak().startedAtMillis();
        if (earlier == null) {
            // A cold client's first request leaves well after the agent sees it go (a connection opened, classes loaded:
            // 0.1 to 0.4 s in a fresh JVM against a loopback portal), and the period began when it reached the host. Its
            // answer, less the round trip of the request that ended the streak (a warm one), says when that was, if later.
            long roundTrip = Math.max(0, now - (streakStart + end.streak().recoveredByMillis()));
            if (firstAdmittedMillis != HostKnowledge.NO_MOMENT && firstAdmittedMillis < streakStart) {
                firstSent = periodStartedAtMillis(roundTrip);
            }
            // In a fleet the period began with the fleet's first request let through, which may be before this JVM's.
            firstSent = Math.min(firstSent, store.firstAdmitted(key, firstSent - windowMillis(policy), streakStart).orElse(firstSent));
        }
        if (firstSent >= streakStart) {
            return null;
        }
        // Counted again over the period, or as the store counted it at the streak's first refusal, whichever is more:
        // a fleet's store knows the fleet's count at a refusal, where this JVM recounts only what it can see.
        int admitted = Math.max(store.ceilingBefore(key, streakStart, streakStart - firstSent + 1), end.before().learnedCeiling);
        // The limit had room again between the last request refused and the one let through: the middle, where the
        // two are close; where they are not (a last try that waited long), the later, for a reading that is a lower bound.
        long lastRefused = streakStart + end.streak().lastRefusedAfterMillis();
        long recovered = streakStart + end.streak().recoveredByMillis();
        boolean overshot = recovered - lastRefused > (recovered - firstSent) / 5;
        long periodEnd = overshot ? recovered : (lastRefused + recovered) / 2;
        periodEnd = Math.min(now, periodEnd);
        double rate = RefusedRate.firstPeriod(admitted, firstSent, periodEnd);
        if (rate <= 0) {
            return null;
        }
        // The period is when the limit had room again by; a configured window no longer than it is consistent
        // with it and stands, one longer is overruled.
        long period = periodEnd - firstSent;
        learnedWindowMillis = policy.windowConfigured() && policy.windowMillis() <= period ? policy.windowMillis() : period;
        OptionalLong asked = end.streak().headerMillis();
        // The last tries' search overshot the end, not a header's wait: a header (random, say) says nothing of the window.
        learnedWindowOvershot = overshot && learnedWindowMillis == period && (!asked.isPresent() || asked.getAsLong() <= policy.minSleepMillis());
        if (pace != null && rate <= pace.refusedRatePerSecond()) {
            // A pace from a configured window at least as high: a reading that is a lower bound leaves it be.
            return new Learned(key, admitted, learnedWindowMillis, AdaptivePace.rate(pace, policy.headroom(), now));
        }
        // A reading from the limit's first period alone is a lower bound (a window others had half used, a
        // recovery the backoff overshot): the curve starts on its plateau, probing at once.
        AdaptivePace next = new AdaptivePace(policy, pace);
        next.fromPlateau(rate, now, learnedWindowMillis);
        store.learn(key, now, scheduleOf(next), OptionalInt.of(admitted));
        return new Learned(key, admitted, learnedWindowMillis, next.rate(now));
    }

    /**
     * The first refusal of a streak, at {@code now}, the host paced on {@code pace} (null: not paced): the rate it
     * refused ({@link RefusedRate}) restarts the pace. {@code refusalCostMillis} is what a refusal has lately cost.
     * Returns what it taught.
     */
    public Learned onFirstRefusal(Policy policy, long now, HostKnowledge known, PaceSchedule pace, long refusalCostMillis) {
        double paced = AdaptivePace.rate(pace, policy.headroom(), now);
        long windowMillis = windowMillis(policy);
        FinishedStreak previous = known.streaks.isEmpty() ? null : known.streaks.get(0);
        long sinceStreak = previous != null ? now - previous.startedAtMillis() : windowMillis;
        long span = previous != null ? RefusedRate.spanMillis(Math.max(1, now - previous.startedAtMillis() - previous.recoveredByMillis()),
                sinceStreak, windowMillis) : sinceStreak;
        if (previous != null && paced > 0 && now - previous.startedAtMillis() - previous.recoveredByMillis() < 1000 / paced) {
            // Refused within the pace's first interval since the streak ended: sent on the heels of the request that ended
            // it, which went unpaced, not at the pace; it says nothing of the rate. Read, it took a portal of 1 per 3 s
            // that one worker's first period read as 1 in 20 s down to its pace of 0.05/s, on a 20-minute cycle
            // (WindowSweep 3 s / 1: 0.70; 0.96 so), and changed nothing else in the limiter, ingestion or fleet benchmarks.
            return null;
        }
        // A fleet's store counts over a window of its own (the policy's), already one window: read no shorter a span.
        if (previous != null && store.ceilingSpanMillis(key, now, Long.MAX_VALUE) == Long.MAX_VALUE) {
            double headroom = policy.headroom();
            // Over its window the host let through three times the rate last read: that window is too long to read over.
            boolean outgrown = pace != null
                    && store.ceilingBefore(key, now, windowMillis) > (learnedWindowOvershot ? 1.5 : 3) * pace.refusedRatePerSecond() * windowMillis / 1000.0;
            long nearTop = outgrown ? RefusedRate.nearTopMillis(pace, headroom, now, span) : Long.MAX_VALUE;
            learnedWindowOvershot = false; // read once so: the reading that follows corrects the window's rate
            span = RefusedRate.lastWindowIfClimbed(span, windowMillis, AdaptivePace.rate(pace, headroom, now - span), paced, nearTop);
        }
        int ceiling = store.ceilingBefore(key, now, span);
        span = store.ceilingSpanMillis(key, now, span);
        // The pace the span began with was let through all the span long: a lower bound too, where a fixed window's
        // count over a span that is not a whole number of its windows reads a little under its limit.
        double pacedBefore = sinceStreak > RefusedRate.RECENT_WINDOWS * windowMillis ? AdaptivePace.rate(pace, policy.headroom(), now - span) : 0;
        double refused = previous != null && (paced > 0 || learnedWindowMillis > 0) ? RefusedRate.at(paced, ceiling, span, pacedBefore) : paced;
        if (refused <= 0 && policy.windowConfigured()) {
            refused = ceiling * 1000.0 / policy.windowMillis(); // a window someone knows: the guide's reading, provisional
        }
        // Else the host's first streak, unpaced, says nothing of the rate until it ends (firstPeriod): the refusal's own
        // wait spaces the retries meanwhile, where a pace guessed from a default window would hold them back and stretch
        // the very period being measured.
        AdaptivePace next = new AdaptivePace(policy, pace);
        next.onRefusal(refused, now, refusalCostMillis, lastStreakRefusals);
        store.learn(key, now, scheduleOf(next), OptionalInt.of(ceiling));
        return new Learned(key, ceiling, span, next.rate(now));
    }
}
