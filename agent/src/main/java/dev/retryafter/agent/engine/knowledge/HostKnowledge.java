package dev.retryafter.agent.engine.knowledge;

import dev.retryafter.agent.engine.learn.Characterisation;
import dev.retryafter.agent.engine.learn.HostCharacteriser;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.learn.ObservationWindow;
import dev.retryafter.agent.engine.learn.PaceSchedule;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What one portal has shown, as a value: the moment before which nobody may send to it, the next
 * booked slot of its pace, a hold, the pace schedule and ceiling it taught, the refusal streak in
 * progress and the last few finished ones, the category's evidence. Nothing here is about this JVM
 * (permits, counters, calls in flight stay in {@link HostState}), so a store can keep it, merge it
 * and share it. Immutable; moments are epoch milliseconds on the engine's clock.
 *
 * <p>Every change is a merge that cannot lose information to a race: a moment only moves later, a
 * pace is replaced only by one learned later, finished streaks are a bounded append.
 */
public final class HostKnowledge implements Serializable {

    /** The shape of this value; a store that persists it writes this and refuses any other. */
    public static final int VERSION = 1;

    private static final long serialVersionUID = VERSION;

    /** The last few streaks are the evidence: {@link ObservationWindow#CAPACITY}. */
    public static final int MAX_STREAKS = ObservationWindow.CAPACITY;

    /** No moment: internal only, never returned by a public method. */
    public static final long NO_MOMENT = Long.MIN_VALUE;
    static final int NO_CEILING = -1;

    /** Nothing known. */
    public static final HostKnowledge NONE = new HostKnowledge(NO_MOMENT, NO_MOMENT, NO_MOMENT, null, null, NO_MOMENT,
            NO_CEILING, null, Collections.<FinishedStreak>emptyList(), NO_MOMENT);

    public final long notBeforeMillis;
    public final long nextSlotMillis;
    public final long holdUntilMillis;
    public final String holdReason;
    public final PaceSchedule pace;
    final long paceLearnedAtMillis;
    public final int learnedCeiling;
    public final OpenStreak streak;
    /** Newest first, at most {@link #MAX_STREAKS}. */
    public final List<FinishedStreak> streaks;
    /** Refusal costs of streaks begun before this moment are forgotten: the category changed then. */
    final long costsSinceMillis;
    /** Why the host's rate-limit hints are not believed (a run before this one may have found it); null: no verdict against them. */
    final String hintsDistrusted;
    /** Why the host's {@code Retry-After} is never held truthful (its refusals were told different moments); null: no verdict. */
    final String retryAfterDistrusted;
    private transient volatile Characterisation characterisation;

    HostKnowledge(long notBeforeMillis, long nextSlotMillis, long holdUntilMillis, String holdReason, PaceSchedule pace,
                  long paceLearnedAtMillis, int learnedCeiling, OpenStreak streak, List<FinishedStreak> streaks,
                  long costsSinceMillis) {
        this(notBeforeMillis, nextSlotMillis, holdUntilMillis, holdReason, pace, paceLearnedAtMillis, learnedCeiling, streak, streaks,
                costsSinceMillis, null, null);
    }

    HostKnowledge(long notBeforeMillis, long nextSlotMillis, long holdUntilMillis, String holdReason, PaceSchedule pace,
                  long paceLearnedAtMillis, int learnedCeiling, OpenStreak streak, List<FinishedStreak> streaks,
                  long costsSinceMillis, String hintsDistrusted, String retryAfterDistrusted) {
        this.hintsDistrusted = hintsDistrusted;
        this.retryAfterDistrusted = retryAfterDistrusted;
        this.notBeforeMillis = notBeforeMillis;
        this.nextSlotMillis = nextSlotMillis;
        this.holdUntilMillis = holdUntilMillis;
        this.holdReason = holdReason;
        this.pace = pace;
        this.paceLearnedAtMillis = paceLearnedAtMillis;
        this.learnedCeiling = learnedCeiling;
        this.streak = streak;
        this.streaks = streaks;
        this.costsSinceMillis = costsSinceMillis;
    }

    /**
     * Knowledge as another store kept it (a file, Redis): every part optional, the streaks newest
     * first (only the first {@link #MAX_STREAKS} are kept).
     */
    public static HostKnowledge of(OptionalLong notBefore, OptionalLong nextSlot, OptionalLong holdUntil, Optional<String> holdReason,
                                   Optional<PaceSchedule> pace, OptionalLong paceLearnedAt, OptionalInt learnedCeiling,
                                   Optional<OpenStreak> openStreak, List<FinishedStreak> finishedStreaks, OptionalLong costsSince) {
        return of(notBefore, nextSlot, holdUntil, holdReason, pace, paceLearnedAt, learnedCeiling, openStreak, finishedStreaks,
                costsSince, Optional.<String>empty());
    }

    /** As the other {@code of}, with the verdict against the host's rate-limit hints, if any. */
    public static HostKnowledge of(OptionalLong notBefore, OptionalLong nextSlot, OptionalLong holdUntil, Optional<String> holdReason,
                                   Optional<PaceSchedule> pace, OptionalLong paceLearnedAt, OptionalInt learnedCeiling,
                                   Optional<OpenStreak> openStreak, List<FinishedStreak> finishedStreaks, OptionalLong costsSince,
                                   Optional<String> hintsDistrusted) {
        return of(notBefore, nextSlot, holdUntil, holdReason, pace, paceLearnedAt, learnedCeiling, openStreak, finishedStreaks,
                costsSince, hintsDistrusted, Optional.<String>empty());
    }

    /** As the other {@code of}, with the verdicts against the host's rate-limit hints and its {@code Retry-After}, if any. */
    public static HostKnowledge of(OptionalLong notBefore, OptionalLong nextSlot, OptionalLong holdUntil, Optional<String> holdReason,
                                   Optional<PaceSchedule> pace, OptionalLong paceLearnedAt, OptionalInt learnedCeiling,
                                   Optional<OpenStreak> openStreak, List<FinishedStreak> finishedStreaks, OptionalLong costsSince,
                                   Optional<String> hintsDistrusted, Optional<String> retryAfterDistrusted) {
        if (learnedCeiling.isPresent() && learnedCeiling.getAsInt() < 0) {
            throw new IllegalArgumentException("a ceiling counts successes: 0 or more");
        }
        List<FinishedStreak> streaks = new ArrayList<>(finishedStreaks.subList(0, Math.min(MAX_STREAKS, finishedStreaks.size())));
        return new HostKnowledge(notBefore.orElse(NO_MOMENT), nextSlot.orElse(NO_MOMENT), holdUntil.orElse(NO_MOMENT),
                holdReason.orElse(null), pace.orElse(null), paceLearnedAt.orElse(NO_MOMENT), learnedCeiling.orElse(NO_CEILING),
                openStreak.orElse(null), Collections.unmodifiableList(streaks), costsSince.orElse(NO_MOMENT), hintsDistrusted.orElse(null),
                retryAfterDistrusted.orElse(null));
    }

    // ---- reading

    public int version() {
        return VERSION;
    }

    /** No request before this moment: the wait the latest refusal imposed, or a hold's end. */
    public OptionalLong notBefore() {
        return moment(notBeforeMillis);
    }

    /** The next moment the pace has free. */
    public OptionalLong nextSlot() {
        return moment(nextSlotMillis);
    }

    /** When the host's hold ends; empty if it was never held. A moment in the past is a hold that is over. */
    public OptionalLong holdUntil() {
        return moment(holdUntilMillis);
    }

    public Optional<String> holdReason() {
        return Optional.ofNullable(holdReason);
    }

    public boolean isHeldAt(long now) {
        return now < holdUntilMillis;
    }

    /** Nothing is owed at {@code now}: no hold, no wait. */
    public boolean owesNothingAt(long now) {
        return now >= holdUntilMillis && now >= notBeforeMillis;
    }

    public Optional<PaceSchedule> pace() {
        return Optional.ofNullable(pace);
    }

    /** When the pace was learned (or re-timed); replaced only by one learned later. */
    public OptionalLong paceLearnedAt() {
        return moment(paceLearnedAtMillis);
    }

    /** Successes in the window before the refusal that began the latest streak. */
    public OptionalInt learnedCeiling() {
        return learnedCeiling == NO_CEILING ? OptionalInt.empty() : OptionalInt.of(learnedCeiling);
    }

    public Optional<OpenStreak> openStreak() {
        return Optional.ofNullable(streak);
    }

    /** The latest finished streaks, newest first, at most {@link #MAX_STREAKS}. */
    public List<FinishedStreak> finishedStreaks() {
        return streaks;
    }

    /** Refusal costs of streaks begun before this moment are not counted: the category changed then. */
    public OptionalLong costsSince() {
        return moment(costsSinceMillis);
    }

    /** Why the host's rate-limit hints are not believed; empty while nothing has contradicted them. */
    public Optional<String> hintsDistrusted() {
        return Optional.ofNullable(hintsDistrusted);
    }

    /**
     * Why the host's {@code Retry-After} is never held truthful again, in this run or the next: two refusals of one
     * streak were told moments further apart than a truthful header allows. Empty while nothing has contradicted it.
     */
    public Optional<String> retryAfterDistrusted() {
        return Optional.ofNullable(retryAfterDistrusted);
    }

    /** The latest moment the host showed anything: a pace learned, a streak, a category change; empty if nothing. */
    public OptionalLong lastEvidence() {
        long latest = Math.max(paceLearnedAtMillis, costsSinceMillis);
        if (streak != null) {
            latest = Math.max(latest, streak.lastRefusedSentMillis());
        }
        for (FinishedStreak s : streaks) {
            latest = Math.max(latest, s.startedAtMillis() + s.recoveredByMillis());
        }
        return moment(latest);
    }

    /**
     * This knowledge as a new run finds it at {@code now}: the pace starts its curve again from now (a
     * run that stopped for a while has not been probing), on its plateau if a refused probe had confirmed
     * one (the rate refused twice is the limit: no dip below it), and a streak left open cannot be measured
     * any more. Everything else, waits and holds not yet over included, stands.
     */
    public HostKnowledge restartedAt(long now) {
        PaceSchedule restarted = pace == null ? null : pace.restartedAt(now);
        return new HostKnowledge(notBeforeMillis, nextSlotMillis, holdUntilMillis, holdReason, restarted, paceLearnedAtMillis,
                learnedCeiling, null, streaks, costsSinceMillis, hintsDistrusted, retryAfterDistrusted);
    }

    /** The category the evidence shows and its median ratio (ignoring any pinned category). */
    public Characterisation characterisation() {
        Characterisation known = characterisation;
        if (known == null) {
            known = HostCharacteriser.characterise(window(), 0, retryAfterDistrusted != null);
            characterisation = known;
        }
        return known;
    }

    /**
     * As {@link #characterisation()}, no recovery read as longer than the host's period {@code periodMillis}
     * (0: not known, the same as {@link #characterisation()}). The period is this JVM's reading, so the
     * result is not kept.
     */
    public Characterisation characterisation(long periodMillis) {
        return periodMillis > 0 ? HostCharacteriser.characterise(window(), periodMillis, retryAfterDistrusted != null) : characterisation();
    }

    /** The finished streaks as the characteriser reads them. */
    public ObservationWindow window() {
        return ObservationWindow.of(streaks, costsSinceMillis);
    }

    // ---- merging: each returns this when nothing changes

    HostKnowledge withNotBefore(long moment) {
        return moment <= notBeforeMillis ? this : copy(moment, nextSlotMillis, holdUntilMillis, holdReason, pace, paceLearnedAtMillis,
                learnedCeiling, streak, streaks, costsSinceMillis);
    }

    HostKnowledge withNextSlot(long moment) {
        return moment <= nextSlotMillis ? this : copy(notBeforeMillis, moment, holdUntilMillis, holdReason, pace, paceLearnedAtMillis,
                learnedCeiling, streak, streaks, costsSinceMillis);
    }

    /** A hold until {@code moment}, which also bars every request until then. */
    HostKnowledge withHold(long moment, String reason) {
        if (moment <= holdUntilMillis) {
            return this;
        }
        return copy(Math.max(notBeforeMillis, moment), nextSlotMillis, moment, reason, pace, paceLearnedAtMillis, learnedCeiling,
                streak, streaks, costsSinceMillis);
    }

    /**
     * No hold, and nothing owed past {@code now}: an operator's release (the one change that moves moments
     * earlier, so it is never part of a merge). What was learned stays.
     */
    HostKnowledge withoutHold(long now) {
        return copy(Math.min(notBeforeMillis, now), Math.min(nextSlotMillis, now), NO_MOMENT, null, pace, paceLearnedAtMillis,
                learnedCeiling, streak, streaks, costsSinceMillis);
    }

    /** A pace learned at {@code learnedAt}; kept only if no later one is known. The ceiling goes with it when given. */
    HostKnowledge withPace(PaceSchedule learned, long learnedAt, int ceiling) {
        if (learnedAt < paceLearnedAtMillis) {
            return this;
        }
        return copy(notBeforeMillis, nextSlotMillis, holdUntilMillis, holdReason, learned, learnedAt,
                ceiling == NO_CEILING ? learnedCeiling : ceiling, streak, streaks, costsSinceMillis);
    }

    HostKnowledge withCostsSince(long moment) {
        return moment <= costsSinceMillis ? this : copy(notBeforeMillis, nextSlotMillis, holdUntilMillis, holdReason, pace,
                paceLearnedAtMillis, learnedCeiling, streak, streaks, moment);
    }

    /** The host's hints contradicted themselves: never believed again. The first verdict's reason stands. */
    HostKnowledge withHintsDistrusted(String why) {
        return hintsDistrusted != null || why == null ? this : new HostKnowledge(notBeforeMillis, nextSlotMillis, holdUntilMillis,
                holdReason, pace, paceLearnedAtMillis, learnedCeiling, streak, streaks, costsSinceMillis, why, retryAfterDistrusted);
    }

    /** The host's {@code Retry-After} contradicted itself: never held truthful again. The first verdict's reason stands. */
    HostKnowledge withRetryAfterDistrusted(String why) {
        return retryAfterDistrusted != null || why == null ? this : new HostKnowledge(notBeforeMillis, nextSlotMillis,
                holdUntilMillis, holdReason, pace, paceLearnedAtMillis, learnedCeiling, streak, streaks, costsSinceMillis,
                hintsDistrusted, why);
    }

    HostKnowledge withStreak(OpenStreak open) {
        return copy(notBeforeMillis, nextSlotMillis, holdUntilMillis, holdReason, pace, paceLearnedAtMillis, learnedCeiling, open,
                streaks, costsSinceMillis);
    }

    /** The open streak closed as {@code finished}, which joins the evidence; the oldest drops out past the bound. */
    HostKnowledge withFinished(FinishedStreak finished) {
        return copy(notBeforeMillis, nextSlotMillis, holdUntilMillis, holdReason, pace, paceLearnedAtMillis, learnedCeiling, null,
                appended(streaks, finished), costsSinceMillis);
    }

    /** Everything {@code other} knows merged in: the later moment, the later pace, every streak once, newest first. */
    public HostKnowledge mergedWith(HostKnowledge other) {
        HostKnowledge merged = withNotBefore(other.notBeforeMillis).withNextSlot(other.nextSlotMillis)
                .withCostsSince(other.costsSinceMillis);
        if (other.holdUntilMillis > merged.holdUntilMillis) {
            merged = merged.withHold(other.holdUntilMillis, other.holdReason);
        }
        if (other.pace != null && other.paceLearnedAtMillis >= merged.paceLearnedAtMillis) {
            merged = merged.withPace(other.pace, other.paceLearnedAtMillis, other.learnedCeiling);
        }
        merged = merged.withHintsDistrusted(other.hintsDistrusted).withRetryAfterDistrusted(other.retryAfterDistrusted);
        if (other.streak != null && (merged.streak == null || other.streak.startedAtMillis() > merged.streak.startedAtMillis())) {
            merged = merged.withStreak(other.streak);
        }
        List<FinishedStreak> all = new ArrayList<>(merged.streaks);
        for (FinishedStreak s : other.streaks) {
            if (!all.contains(s)) {
                all.add(s);
            }
        }
        all.sort((a, b) -> Long.compare(b.startedAtMillis(), a.startedAtMillis()));
        List<FinishedStreak> bounded = Collections.unmodifiableList(new ArrayList<>(all.subList(0, Math.min(MAX_STREAKS, all.size()))));
        return merged.copy(merged.notBeforeMillis, merged.nextSlotMillis, merged.holdUntilMillis, merged.holdReason, merged.pace,
                merged.paceLearnedAtMillis, merged.learnedCeiling, merged.streak, bounded, merged.costsSinceMillis);
    }

    private static List<FinishedStreak> appended(List<FinishedStreak> newestFirst, FinishedStreak newest) {
        List<FinishedStreak> next = new ArrayList<>(Math.min(MAX_STREAKS, newestFirst.size() + 1));
        next.add(newest);
        for (int i = 0; i < newestFirst.size() && next.size() < MAX_STREAKS; i++) {
            next.add(newestFirst.get(i));
        }
        return Collections.unmodifiableList(next);
    }

    private HostKnowledge copy(long notBefore, long nextSlot, long holdUntil, String reason, PaceSchedule pace, long paceLearnedAt,
                               int ceiling, OpenStreak streak, List<FinishedStreak> streaks, long costsSince) {
        return new HostKnowledge(notBefore, nextSlot, holdUntil, reason, pace, paceLearnedAt, ceiling, streak, streaks, costsSince,
                hintsDistrusted, retryAfterDistrusted);
    }

    private static OptionalLong moment(long millis) {
        return millis == NO_MOMENT ? OptionalLong.empty() : OptionalLong.of(millis);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof HostKnowledge)) {
            return false;
        }
        HostKnowledge k = (HostKnowledge) o;
        return notBeforeMillis == k.notBeforeMillis && nextSlotMillis == k.nextSlotMillis && holdUntilMillis == k.holdUntilMillis
                && Objects.equals(holdReason, k.holdReason) && Objects.equals(pace, k.pace) && paceLearnedAtMillis == k.paceLearnedAtMillis
                && learnedCeiling == k.learnedCeiling && Objects.equals(streak, k.streak) && streaks.equals(k.streaks)
                && costsSinceMillis == k.costsSinceMillis && Objects.equals(hintsDistrusted, k.hintsDistrusted)
                && Objects.equals(retryAfterDistrusted, k.retryAfterDistrusted);
    }

    @Override
    public int hashCode() {
        return Objects.hash(notBeforeMillis, nextSlotMillis, holdUntilMillis, pace, learnedCeiling, streak, streaks);
    }

    @Override
    public String toString() {
        return "HostKnowledge[v" + VERSION + " notBefore " + notBefore() + ", nextSlot " + nextSlot() + ", hold " + holdUntil()
                + ", pace " + pace + ", ceiling " + learnedCeiling() + ", open " + streak + ", streaks " + streaks
                + (hintsDistrusted == null ? "" : ", hints distrusted: " + hintsDistrusted)
                + (retryAfterDistrusted == null ? "" : ", Retry-After distrusted: " + retryAfterDistrusted) + "]";
    }
}
