package dev.retryafter.agent.store.redis;

import java.util.Locale;

/**
 * One finished refusal streak as the fleet keeps it: what the first refusal's header said, when
 * the last refused request went out and when the one that got through went out, both counted from
 * the first refusal, and whether the host was paced then. Durations only, so no clock is in it.
 * Equal records say the same of a streak; their age is left out, since it grows while one looks.
 */
public final class StreakRecord {

    private final boolean hadHeader;
    private final long headerMillis;
    private final long lastRefusedMillis;
    private final long recoveredByMillis;
    private final boolean whilePaced;
    private final long ageMillis;

    /** A streak whose first refusal, {@code ageMillis} ago, said {@code headerMillis}. */
    public static StreakRecord withHeader(long headerMillis, long lastRefusedMillis, long recoveredByMillis,
                                          boolean whilePaced, long ageMillis) {
        return new StreakRecord(true, headerMillis, lastRefusedMillis, recoveredByMillis, whilePaced, ageMillis);
    }

    /** A streak whose first refusal, {@code ageMillis} ago, carried no usable header. */
    public static StreakRecord withoutHeader(long lastRefusedMillis, long recoveredByMillis, boolean whilePaced,
                                             long ageMillis) {
        return new StreakRecord(false, 0, lastRefusedMillis, recoveredByMillis, whilePaced, ageMillis);
    }

    private StreakRecord(boolean hadHeader, long headerMillis, long lastRefusedMillis, long recoveredByMillis,
                           boolean whilePaced, long ageMillis) {
        this.hadHeader = hadHeader;
        this.headerMillis = headerMillis;
        this.lastRefusedMillis = lastRefusedMillis;
        this.recoveredByMillis = recoveredByMillis;
        this.whilePaced = whilePaced;
        this.ageMillis = ageMillis;
    }

    public boolean hadHeader() {
        return hadHeader;
    }

    /** Meaningful only when {@link #hadHeader()}. */
    public long headerMillis() {
        return headerMillis;
    }

    public long lastRefusedMillis() {
        return lastRefusedMillis;
    }

    public long recoveredByMillis() {
        return recoveredByMillis;
    }

    public boolean whilePaced() {
        return whilePaced;
    }

    /**
     * How long ago its first refusal was: by Redis's clock when read from Redis, so the same for
     * every JVM whatever its own clock says.
     */
    public long ageMillis() {
        return ageMillis;
    }

    /** {@code h=2000 last=150 by=2100 paced=1}, or {@code h=- ...} without a header. The script puts the start first. */
    String encode() {
        return String.format(Locale.ROOT, "h=%s last=%d by=%d paced=%d", hadHeader ? Long.toString(headerMillis) : "-",
                lastRefusedMillis, recoveredByMillis, whilePaced ? 1 : 0);
    }

    /** As {@link #encode()} wrote it, after the start the script put first; null if it is not one. */
    static StreakRecord decode(String stored, long serverNow) {
        String[] parts = stored.split(" ");
        if (parts.length != 5) {
            return null;
        }
        try {
            long at = Long.parseLong(parts[0]);
            String header = value(parts[1], "h");
            long last = Long.parseLong(value(parts[2], "last"));
            long by = Long.parseLong(value(parts[3], "by"));
            boolean paced = "1".equals(value(parts[4], "paced"));
            boolean hadHeader = !"-".equals(header);
            return new StreakRecord(hadHeader, hadHeader ? Long.parseLong(header) : 0, last, by, paced, serverNow - at);
        } catch (IllegalArgumentException e) {
            return null; // a record this version cannot read is left out, not a failure
        }
    }

    private static String value(String part, String name) {
        if (!part.startsWith(name + "=")) {
            throw new IllegalArgumentException(part);
        }
        return part.substring(name.length() + 1);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof StreakRecord)) {
            return false;
        }
        StreakRecord s = (StreakRecord) o;
        return hadHeader == s.hadHeader && headerMillis == s.headerMillis && lastRefusedMillis == s.lastRefusedMillis
                && recoveredByMillis == s.recoveredByMillis && whilePaced == s.whilePaced;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(hadHeader, headerMillis, lastRefusedMillis, recoveredByMillis, whilePaced);
    }

    @Override
    public String toString() {
        return "StreakRecord[" + encode() + ", " + ageMillis + " ms ago]";
    }
}
