package dev.retryafter.agent.engine.learn;

import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.HostState;

import dev.retryafter.agent.engine.header.RateLimitHint;

import java.util.Locale;
import java.util.TreeSet;

/**
 * What a host's rate-limit hints ({@link RateLimitHint}) allow: so many requests until a moment.
 * Believed from the first complete hint, and never again once the host contradicts it: a refusal
 * while the hint said requests were left, or a reset named in the past. While believed, a request
 * goes only if the allowance has room, counting what was sent since the response that said so, and
 * otherwise waits for the reset; that is how a truthful host is never refused and its whole
 * allowance used. Requests are counted by their send's sequence number ({@link HostState#onSent}),
 * so a response answering an early request does not hand out room the later ones already took; and
 * requests sent before the answered one but still unanswered when its hint came may have reached
 * the portal after it (another connection, another thread), so they are counted as taken too.
 * Threadsafe.
 */
public final class HintBudget {

    public enum Trust {
        /** No hint seen yet. */
        NONE,
        BELIEVED,
        /** Contradicted once: hints are read for the report, never paced by. */
        DISTRUSTED
    }

    /** A host's hints became believed or distrusted: one log line, once. */
    public static final class Change {
        final Trust trust;
        final RateLimitHint hint;
        public final String why;

        Change(Trust trust, RateLimitHint hint, String why) {
            this.trust = trust;
            this.hint = hint;
            this.why = why;
        }

        /** Believed, where false is distrusted. */
        public boolean isBelief() {
            return trust == Trust.BELIEVED;
        }

        @Override
        public String toString() {
            return trust == Trust.BELIEVED ? "pacing by its rate-limit hints (" + hint + ")"
                    : "rate-limit hints distrusted: " + why + " (" + hint + "); paced as if it sent none";
        }
    }

    /** Resets named within this of each other are one allowance's: whole seconds, and a response's time on its way. */
    private static final long SAME_RESET_MILLIS = 1_500;

    /** Responses looked at before a host that sent no hint is taken to send none: its adapter stops offering headers. */
    private static final int LOOKS_BEFORE_GIVING_UP = 16;

    private volatile Trust trust = Trust.NONE;
    private volatile int looked;
    // Guarded by this.
    private RateLimitHint last;
    private String distrustedBecause;
    /** When the allowance is whole again, as the newest hint said; NO_MOMENT: no allowance known. */
    private long resetsAt = HostKnowledge.NO_MOMENT;
    /** What was left, as of the send numbered {@link #asOfSend}. */
    private long remaining;
    private long asOfSend;
    /** Sends not yet answered, tracked while hints are believed or still looked for: the first hint must know them too. */
    private final TreeSet<Long> unanswered = new TreeSet<>();
    /**
     * Sends older than {@link #asOfSend} still unanswered when its hint came: perhaps not counted in
     * it. One whose own answer then shows it was counted first (it left more places) leaves this set.
     */
    private TreeSet<Long> olderAtWord = new TreeSet<>();
    /**
     * Turns told to go by {@link #claim} and not yet sent: two threads that both found the last
     * place free must not both take it. Cleared by fresh word from the host.
     */
    private int claimed;
    /** A bound on {@link #unanswered}: attempts that never end must not grow it without end. */
    private static final int MAX_TRACKED = 4096;

    /**
     * Whether a response's headers are worth offering: always on a refusal, on every response of a
     * host whose hints are believed, and on a host's first few; otherwise a host that sends none
     * costs its responses nothing.
     */
    public boolean wanted(int status) {
        return trust == Trust.BELIEVED || status >= 400 || looked < LOOKS_BEFORE_GIVING_UP;
    }

    /**
     * A response answering the request sent as number {@code sentAs}, and what its headers said
     * (null: nothing). Returns a change of trust to log, or null.
     */
    public synchronized Change onResponse(RateLimitHint hint, boolean refused, long sentAs, long sendsSoFar, long now) {
        if (looked < LOOKS_BEFORE_GIVING_UP) {
            looked++;
        }
        unanswered.remove(sentAs);
        if (hint != null && olderAtWord.remove(sentAs) && hint.remaining <= remaining) {
            olderAtWord.add(sentAs); // counted after the word in force: its place is not in it
        }
        if (trust == Trust.NONE && looked >= LOOKS_BEFORE_GIVING_UP && hint == null) {
            unanswered.clear(); // no hint in the first responses: nothing to count for
        }
        if (hint == null) {
            return refused ? contradictedByRefusal(sentAs, now) : null;
        }
        last = hint;
        if (trust == Trust.DISTRUSTED) {
            return null;
        }
        if (hint.resetInPast) {
            return distrust("its reset named a moment already past");
        }
        if (refused && hint.remaining > 0) {
            return distrust(String.format(Locale.ROOT, "refused while it said %d were left", hint.remaining));
        }
        if (refused) {
            Change contradicted = contradictedByRefusal(sentAs, now);
            if (contradicted != null) {
                return contradicted;
            }
        }
        if (!hint.isComplete()) {
            return null;
        }
        long newResetsAt = hint.resetMillis > 0 ? now + hint.resetMillis : HostKnowledge.NO_MOMENT;
        TreeSet<Long> olderNow = new TreeSet<>(unanswered.headSet(sentAs));
        long older = olderNow.size();
        boolean laterAllowance = newResetsAt != HostKnowledge.NO_MOMENT && (resetsAt == HostKnowledge.NO_MOMENT
                || newResetsAt > resetsAt + SAME_RESET_MILLIS || now >= resetsAt);
        // Within one allowance, the word that leaves fewer places wins: responses are processed in another order than
        // the portal answered them (other connections, other threads), so a later-numbered send's word may be older.
        boolean fewerLeft = hint.remaining - (sendsSoFar - sentAs) - older < remaining - (sendsSoFar - asOfSend) - olderAtWord.size();
        if (laterAllowance || (resetsAt != HostKnowledge.NO_MOMENT && newResetsAt != HostKnowledge.NO_MOMENT && fewerLeft)) {
            resetsAt = newResetsAt;
            remaining = hint.remaining;
            asOfSend = sentAs;
            olderAtWord = olderNow;
            claimed = 0;
        }
        if (trust == Trust.NONE) {
            trust = Trust.BELIEVED;
            return new Change(Trust.BELIEVED, hint, null);
        }
        return null;
    }

    /**
     * How long a request now, to be sent as number {@code nextSend}, must wait for the allowance:
     * 0 when it has room, or no hint is believed; else until the moment it is whole again.
     */
    public synchronized long waitAt(long now, long nextSend) {
        if (trust != Trust.BELIEVED || resetsAt == HostKnowledge.NO_MOMENT || now >= resetsAt) {
            return 0;
        }
        long left = remaining - (nextSend - 1 - asOfSend) - olderAtWord.size() - claimed;
        return left > 0 ? 0 : resetsAt - now;
    }

    /**
     * As {@link #waitAt}, for a turn about to go: when the allowance has room, one place of it is
     * taken for this turn until its send is counted ({@link #onSent}); returns 0 then.
     */
    public synchronized long claim(long now, long nextSend) {
        long wait = waitAt(now, nextSend);
        if (wait == 0 && trust == Trust.BELIEVED && resetsAt != HostKnowledge.NO_MOMENT && now < resetsAt) {
            claimed++;
        }
        return wait;
    }

    /** Whether sends are tracked: while hints are believed, or a host's first responses are still looked at for them. */
    private boolean tracking() {
        Trust now = trust;
        return now == Trust.BELIEVED || (now == Trust.NONE && looked < LOOKS_BEFORE_GIVING_UP);
    }

    /** Send number {@code number} went. */
    public void onSent(long number) {
        if (tracking()) {
            synchronized (this) {
                if (claimed > 0) {
                    claimed--;
                }
                if (unanswered.size() >= MAX_TRACKED) {
                    unanswered.clear();
                }
                unanswered.add(number);
            }
        }
    }

    /** The attempt sent as {@code number} is over, answered or failed. */
    public void onEnded(long number) {
        if (tracking()) {
            synchronized (this) {
                unanswered.remove(number);
            }
        }
    }

    /** The moment the believed allowance is whole again; NO_MOMENT when none is. */
    synchronized long resetsAt() {
        return trust == Trust.BELIEVED ? resetsAt : HostKnowledge.NO_MOMENT;
    }

    /** In the report's words: what the host's hints said last, and whether they are believed. */
    public synchronized String describe() {
        switch (trust) {
            case BELIEVED:
                return "believed (" + last + ")";
            case DISTRUSTED:
                return "distrusted: " + distrustedBecause + (last == null ? "" : " (last: " + last + ")");
            default:
                return "none";
        }
    }

    public Trust trust() {
        return trust;
    }

    /** A refusal of a request sent while the believed allowance had room to spare: the hint overstated it. */
    private Change contradictedByRefusal(long sentAs, long now) {
        if (trust != Trust.BELIEVED || resetsAt == HostKnowledge.NO_MOMENT || now >= resetsAt || sentAs <= asOfSend) {
            return null;
        }
        long leftAtSend = remaining - (sentAs - 1 - asOfSend);
        // One to spare: two requests may race for the last place.
        return leftAtSend >= 2 ? distrust(String.format(Locale.ROOT, "refused when %d should have been left", leftAtSend)) : null;
    }

    /** The first hint of a host whose hints an earlier run found false ({@link HostKnowledge#hintsDistrusted()}). */
    public synchronized Change distrustedBefore(RateLimitHint hint, String why) {
        if (trust != Trust.NONE) {
            return null;
        }
        last = hint;
        return distrust(why + ", as found before");
    }

    private Change distrust(String why) {
        trust = Trust.DISTRUSTED;
        distrustedBecause = why;
        resetsAt = HostKnowledge.NO_MOMENT;
        unanswered.clear();
        olderAtWord.clear();
        return new Change(Trust.DISTRUSTED, last, why);
    }
}
