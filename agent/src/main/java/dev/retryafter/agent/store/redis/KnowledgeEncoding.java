package dev.retryafter.agent.store.redis;

import dev.retryafter.agent.engine.knowledge.FinishedStreak;
import dev.retryafter.agent.engine.knowledge.HostKnowledge;
import dev.retryafter.agent.engine.knowledge.OpenStreak;
import dev.retryafter.agent.engine.learn.PaceSchedule;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The engine's {@link HostKnowledge} as the fleet's scripts take and answer it. Redis keeps moments on
 * its own clock, so a moment travels as an offset from a now: this JVM's when written, Redis's when
 * read (then added to this JVM's now as the answer came, so a moment is never earlier than Redis
 * meant; it may be later by the trip back). What this version cannot read (another writer's garbage)
 * reads as absent, never as a failure.
 */
final class KnowledgeEncoding {

    private KnowledgeEncoding() {
    }

    /** {@code known} as MERGE's arguments after its ttl and capacity, at {@code now}: a not-before or slot already past is left out. */
    static List<String> mergeArguments(HostKnowledge known, long now) {
        List<String> args = new ArrayList<>();
        args.add(ahead(known.notBefore(), now));
        args.add(ahead(known.nextSlot(), now));
        args.add(offset(known.costsSince(), now));
        args.add(known.isHeldAt(now) ? offset(known.holdUntil(), now) : "");
        args.add(known.holdReason().orElse(""));
        args.add(offset(known.paceLearnedAt(), now));
        args.add(known.learnedCeiling().isPresent() ? Integer.toString(known.learnedCeiling().getAsInt()) : "");
        PaceSchedule pace = known.pace().orElse(null);
        args.add(pace == null ? "" : Double.toString(pace.refusedRatePerSecond()));
        args.add(pace == null ? "0" : Long.toString(pace.cycleMillis()));
        args.add(pace == null ? "0" : Long.toString(pace.epochMillis() - now));
        args.add(pace == null ? "0" : Long.toString(pace.probeAfterMillis()));
        args.add(pace == null ? "0" : Long.toString(pace.windowMillis()));
        args.add(known.hintsDistrusted().orElse(""));
        OpenStreak open = known.openStreak().orElse(null);
        args.add(open == null ? "" : Long.toString(open.startedAtMillis() - now));
        args.add(open == null ? "-" : header(open.headerMillis()));
        args.add(open == null ? "0" : Long.toString(open.lastRefusedSentMillis() - now));
        args.add(open == null ? "0" : Integer.toString(open.refusals()));
        args.add(flag(open != null && open.whilePaced()));
        args.add(known.retryAfterDistrusted().orElse(""));
        List<FinishedStreak> oldestFirst = new ArrayList<>(known.finishedStreaks());
        Collections.reverse(oldestFirst);
        for (FinishedStreak s : oldestFirst) {
            args.add(Long.toString(s.startedAtMillis() - now));
            args.add(String.format(Locale.ROOT, "h=%s last=%d by=%d paced=%d", header(s.headerMillis()), s.lastRefusedAfterMillis(),
                    s.recoveredByMillis(), s.whilePaced() ? 1 : 0));
        }
        return args;
    }

    /** READ's answer {now, the hash's fields and values, the streaks as stored}, on this JVM's clock at {@code localNow}. */
    static HostKnowledge decode(List<?> parts, long localNow) {
        List<?> flat = (List<?>) parts.get(1);
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            fields.put(text(flat.get(i)), text(flat.get(i + 1)));
        }
        long serverNow = Long.parseLong(text(parts.get(0)));
        OptionalLong learnedAt = moment(fields.get("learned-at"), serverNow, localNow);
        Optional<PaceSchedule> pace = Optional.empty();
        double rate = rate(fields.get("rate"));
        long cycle = number(fields.get("cycle")).orElse(0);
        if (learnedAt.isPresent() && rate > 0 && cycle > 0) {
            pace = Optional.of(new PaceSchedule(rate, moment(fields.get("epoch"), serverNow, localNow).orElse(localNow), cycle,
                    plateau(fields.get("probe"), fields.get("epoch")), Math.max(0, number(fields.get("window")).orElse(0))));
        }
        OptionalLong ceiling = number(fields.get("ceiling"));
        OptionalLong hold = moment(fields.get("hold"), serverNow, localNow);
        OptionalLong notBefore = moment(fields.get("nb"), serverNow, localNow);
        if (hold.isPresent() && (!notBefore.isPresent() || notBefore.getAsLong() < hold.getAsLong())) {
            notBefore = hold; // no request goes before a hold ends
        }
        OptionalLong start = moment(fields.get("streak-start"), serverNow, localNow);
        Optional<OpenStreak> open = Optional.empty();
        if (start.isPresent()) {
            open = Optional.of(OpenStreak.of(start.getAsLong(), number(fields.get("streak-header")),
                    moment(fields.get("streak-sent"), serverNow, localNow).orElse(start.getAsLong()),
                    (int) Math.max(1, Math.min(Integer.MAX_VALUE, number(fields.get("streak-refusals")).orElse(1))),
                    "1".equals(fields.get("streak-paced"))));
        }
        List<FinishedStreak> finished = new ArrayList<>();
        for (Object record : (List<?>) parts.get(2)) {
            FinishedStreak streak = finished(text(record), serverNow, localNow);
            if (streak != null) {
                finished.add(streak);
            }
        }
        finished.sort((a, b) -> Long.compare(b.startedAtMillis(), a.startedAtMillis()));
        return HostKnowledge.of(notBefore, moment(fields.get("next"), serverNow, localNow), hold,
                hold.isPresent() ? Optional.of(fields.getOrDefault("hold-reason", "")) : Optional.<String>empty(), pace,
                learnedAt, learnedAt.isPresent() && ceiling.isPresent()
                        ? OptionalInt.of((int) Math.min(Integer.MAX_VALUE, ceiling.getAsLong())) : OptionalInt.empty(),
                open, finished, moment(fields.get("costs-since"), serverNow, localNow),
                Optional.ofNullable(fields.get("hints-distrusted")), Optional.ofNullable(fields.get("retry-after-distrusted")));
    }

    /** {@code start h=2000 last=150 by=2100 paced=1}, as MERGE and RECOVERY store it; null if it is not one. */
    private static FinishedStreak finished(String record, long serverNow, long localNow) {
        String[] parts = record.split(" ");
        if (parts.length != 5 || !parts[1].startsWith("h=") || !parts[2].startsWith("last=") || !parts[3].startsWith("by=")) {
            return null;
        }
        OptionalLong at = moment(parts[0], serverNow, localNow);
        OptionalLong last = number(parts[2].substring(5));
        OptionalLong by = number(parts[3].substring(3));
        if (!at.isPresent() || !last.isPresent() || !by.isPresent()) { // number() reads no negative
            return null;
        }
        return FinishedStreak.of(at.getAsLong(), number(parts[1].substring(2)), last.getAsLong(), by.getAsLong(),
                "paced=1".equals(parts[4]));
    }

    /** RESERVE's answer {wait, not-before, hold, reason}, durations from {@code base}, with the next slot it booked. */
    static HostKnowledge reserved(List<?> answer, long base, long nextSlotIn) {
        OptionalLong hold = after(base, integer(answer.get(2)));
        return HostKnowledge.of(after(base, integer(answer.get(1))), after(base, nextSlotIn), hold,
                hold.isPresent() ? Optional.of(text(answer.get(3))) : Optional.<String>empty(), Optional.<PaceSchedule>empty(),
                OptionalLong.empty(), OptionalInt.empty(), Optional.<OpenStreak>empty(), Collections.<FinishedStreak>emptyList(),
                OptionalLong.empty());
    }

    /** REFUSAL's answer from its fourth part on {start, header, last refused sent (all ago), refusals, paced}, at {@code now}. */
    static OpenStreak openStreak(List<?> answer, long now) {
        return OpenStreak.of(now - Math.max(0, integer(answer.get(3))), number(text(answer.get(4))),
                now - Math.max(0, integer(answer.get(5))), (int) Math.max(1, integer(answer.get(6))), "1".equals(text(answer.get(7))));
    }

    /** RECOVERY's answer {1, start (ago), header, last refused, recovered by (after start), paced}, at {@code now}. */
    static FinishedStreak finishedStreak(List<?> answer, long now) {
        return FinishedStreak.of(now - Math.max(0, integer(answer.get(1))), number(text(answer.get(2))),
                Math.max(0, integer(answer.get(3))), Math.max(0, integer(answer.get(4))), "1".equals(text(answer.get(5))));
    }

    /** A duration a script answered, from {@code base}: a moment, if it is ahead. */
    private static OptionalLong after(long base, long millis) {
        return millis > 0 ? OptionalLong.of(base + millis) : OptionalLong.empty();
    }

    /** A header's wait as stored: '-' for none. */
    static String header(OptionalLong millis) {
        return millis.isPresent() ? Long.toString(millis.getAsLong()) : "-";
    }

    static String flag(boolean set) {
        return set ? "1" : "0";
    }

    private static String offset(OptionalLong moment, long now) {
        return moment.isPresent() ? Long.toString(moment.getAsLong() - now) : "";
    }

    private static String ahead(OptionalLong moment, long now) {
        return moment.isPresent() && moment.getAsLong() > now ? Long.toString(moment.getAsLong() - now) : "";
    }

    private static OptionalLong moment(String stored, long serverNow, long localNow) {
        OptionalLong value = number(stored);
        return value.isPresent() ? OptionalLong.of(localNow + value.getAsLong() - serverNow) : value;
    }

    /** A whole number of 0 or more as stored; empty when there is none or it is not one ('-', another writer's garbage). */
    static OptionalLong number(String text) {
        try {
            long value = text == null || text.isEmpty() || "-".equals(text) ? -1 : Long.parseLong(text);
            return value >= 0 ? OptionalLong.of(value) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private static double rate(String text) {
        try {
            double rate = text == null ? 0 : Double.parseDouble(text);
            return rate > 0 && !Double.isInfinite(rate) ? rate : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** An integer of a script's answer, as Redis sends it (an integer, or a string of one). */
    static long integer(Object value) {
        return value instanceof Long ? (Long) value : Long.parseLong(text(value));
    }

    static String text(Object value) {
        return value instanceof byte[] ? new String((byte[]) value, StandardCharsets.UTF_8) : String.valueOf(value);
    }

    /**
     * A plateau's length from its field, {@code after@epoch}, when it belongs to the pace's epoch; else 0, the cubic
     * curve: no field (a hash from before plateaus were kept), or one an older agent left behind when it rewrote the pace.
     */
    private static long plateau(String probe, String epoch) {
        int at = probe == null ? -1 : probe.indexOf('@');
        return at > 0 && probe.substring(at + 1).equals(epoch) ? number(probe.substring(0, at)).orElse(0) : 0;
    }
}
