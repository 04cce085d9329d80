package dev.retryafter.it.bench;

import java.util.ArrayDeque;

/**
 * How a portal decides whether to let a request through: the shapes rate limiters come in. Each
 * keeps its own state, on the virtual clock's moments, and says how long until it has room again,
 * for a portal whose {@code Retry-After} tells the truth.
 */
interface Limiter {

    /** A request arriving at {@code now}: true when let through. */
    boolean admit(long now);

    /** After a refusal at {@code now}: how long until this limiter lets a request through again. */
    long millisUntilRoom(long now);

    /** A request let through has been answered at {@code now}: only a cap on requests in flight counts these. */
    default void done(long now) {
    }

    /** After {@link #admit} at {@code now}: how many more it would let through now; -1 when it cannot say. */
    default long remaining(long now) {
        return -1;
    }

    /** The status it refuses with at {@code now}: {@code usual}, but for a penalty box. */
    default int refusalStatus(long now, int usual) {
        return usual;
    }

    /** How many times the client was put in a penalty box. */
    default int boxEntries() {
        return 0;
    }

    /**
     * A penalty box around {@code inner}: more than {@code maxRefusals} refusals within
     * {@code spanMillis} and every request is refused with {@code status} for {@code boxMillis}.
     */
    final class PenaltyBox implements Limiter {
        private final Limiter inner;
        private final int maxRefusals;
        private final long spanMillis;
        private final long boxMillis;
        private final int status;
        private final ArrayDeque<Long> refusals = new ArrayDeque<>();
        private long boxedUntil = Long.MIN_VALUE;
        private int entries;
        /** The last request was refused by the box itself. */
        private boolean lastBoxed;

        PenaltyBox(Limiter inner, int maxRefusals, long spanMillis, long boxMillis, int status) {
            this.inner = inner;
            this.maxRefusals = maxRefusals;
            this.spanMillis = spanMillis;
            this.boxMillis = boxMillis;
            this.status = status;
        }

        @Override
        public boolean admit(long now) {
            lastBoxed = now < boxedUntil;
            if (lastBoxed) {
                return false;
            }
            if (inner.admit(now)) {
                return true;
            }
            refusals.addLast(now);
            while (refusals.peekFirst() <= now - spanMillis) {
                refusals.pollFirst();
            }
            if (refusals.size() > maxRefusals) {
                boxedUntil = now + boxMillis;
                entries++;
                refusals.clear();
            }
            return false;
        }

        @Override
        public long millisUntilRoom(long now) {
            return now < boxedUntil ? boxedUntil - now : inner.millisUntilRoom(now);
        }

        @Override
        public void done(long now) {
            inner.done(now);
        }

        @Override
        public long remaining(long now) {
            return inner.remaining(now);
        }

        /** The refusal that puts the client in the box is the usual one; every one after it, the box's. */
        @Override
        public int refusalStatus(long now, int usual) {
            return lastBoxed ? status : usual;
        }

        @Override
        public int boxEntries() {
            return entries;
        }
    }

    /**
     * {@code limit} requests per window of {@code windowMillis}, counted in windows that start at
     * {@code origin}; from {@code changeAt} on the limit is {@code laterLimit}. The first window may
     * start already used up: {@code usedAtStart} requests of it spent by someone else.
     */
    final class FixedWindow implements Limiter {
        private final int limit;
        private final int laterLimit;
        private final long changeAt;
        private final long windowMillis;
        private final long origin;
        private long windowIndex;
        private int used;

        FixedWindow(int limit, int laterLimit, long changeAt, long windowMillis, long origin, int usedAtStart) {
            this.limit = limit;
            this.laterLimit = laterLimit;
            this.changeAt = changeAt;
            this.windowMillis = windowMillis;
            this.origin = origin;
            this.used = usedAtStart;
        }

        @Override
        public boolean admit(long now) {
            long index = Math.floorDiv(now - origin, windowMillis);
            if (index != windowIndex) {
                windowIndex = index;
                used = 0;
            }
            if (used >= (now < changeAt ? limit : laterLimit)) {
                return false;
            }
            used++;
            return true;
        }

        @Override
        public long millisUntilRoom(long now) {
            return origin + (Math.floorDiv(now - origin, windowMillis) + 1) * windowMillis - now;
        }

        @Override
        public long remaining(long now) {
            return Math.floorDiv(now - origin, windowMillis) != windowIndex ? (now < changeAt ? limit : laterLimit)
                    : Math.max(0, (now < changeAt ? limit : laterLimit) - used);
        }
    }

    /** At most {@code limit} requests let through in any span of {@code windowMillis}. */
    final class RollingWindow implements Limiter {
        private final int limit;
        private final long windowMillis;
        private final ArrayDeque<Long> admitted = new ArrayDeque<>();

        RollingWindow(int limit, long windowMillis) {
            this.limit = limit;
            this.windowMillis = windowMillis;
        }

        @Override
        public boolean admit(long now) {
            while (!admitted.isEmpty() && admitted.peekFirst() <= now - windowMillis) {
                admitted.pollFirst();
            }
            if (admitted.size() >= limit) {
                return false;
            }
            admitted.addLast(now);
            return true;
        }

        @Override
        public long millisUntilRoom(long now) {
            return admitted.isEmpty() ? 0 : Math.max(0, admitted.peekFirst() + windowMillis - now);
        }
    }

    /** A bucket of {@code capacity} tokens, full at first, refilled at {@code perSecond}; a request takes one. */
    final class TokenBucket implements Limiter {
        private final double capacity;
        private final double perMillis;
        private double tokens;
        private long last = Long.MIN_VALUE;

        TokenBucket(double capacity, double perSecond) {
            this.capacity = capacity;
            this.perMillis = perSecond / 1000;
            this.tokens = capacity;
        }

        @Override
        public boolean admit(long now) {
            refill(now);
            if (tokens < 1) {
                return false;
            }
            tokens -= 1;
            return true;
        }

        @Override
        public long millisUntilRoom(long now) {
            refill(now);
            return tokens >= 1 ? 0 : (long) Math.ceil((1 - tokens) / perMillis);
        }

        private void refill(long now) {
            if (last != Long.MIN_VALUE) {
                tokens = Math.min(capacity, tokens + (now - last) * perMillis);
            }
            last = now;
        }
    }

    /**
     * nginx's {@code limit_req rate=R burst=B nodelay}: a leaky bucket whose excess drains at R a
     * second; a request that would raise the excess past B is refused and changes nothing.
     */
    final class LeakyBucket implements Limiter {
        private final double perMillis;
        private final double burst;
        private double excess;
        private long last = Long.MIN_VALUE;

        LeakyBucket(double perSecond, int burst) {
            this.perMillis = perSecond / 1000;
            this.burst = burst;
        }

        @Override
        public boolean admit(long now) {
            double next = Math.max(0, drained(now) + 1);
            if (next > burst + 1e-9) {
                return false;
            }
            excess = next;
            last = now;
            return true;
        }

        @Override
        public long millisUntilRoom(long now) {
            double over = drained(now) + 1 - burst;
            return over <= 0 ? 0 : (long) Math.ceil(over / perMillis);
        }

        private double drained(long now) {
            return last == Long.MIN_VALUE ? 0 : Math.max(0, excess - (now - last) * perMillis);
        }
    }

    /** At most {@code limit} requests in flight at once; nothing about rate. */
    final class InFlightCap implements Limiter {
        private final int limit;
        private int inFlight;

        InFlightCap(int limit) {
            this.limit = limit;
        }

        @Override
        public boolean admit(long now) {
            if (inFlight >= limit) {
                return false;
            }
            inFlight++;
            return true;
        }

        @Override
        public long millisUntilRoom(long now) {
            return 0;
        }

        @Override
        public void done(long now) {
            inFlight--;
        }
    }
}
