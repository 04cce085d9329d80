package dev.retryafter.agent.engine.header;

/**
 * The rate-limit headers of one response, as an adapter offers them ({@link #offer}), read into a
 * {@link RateLimitHint}. Understood, in this order of preference:
 * <ul>
 *   <li>the IETF draft's {@code RateLimit} structured field, in both its forms:
 *       {@code limit=20, remaining=5, reset=3} (drafts 05 to 07) and {@code "default";r=5;t=3}
 *       (draft 08 on), with {@code RateLimit-Policy} ({@code 20;w=2} or {@code "default";q=20;w=2});</li>
 *   <li>the older draft's {@code RateLimit-Limit}, {@code -Remaining}, {@code -Reset} (delta-seconds);</li>
 *   <li>{@code X-RateLimit-*} and {@code X-Rate-Limit-*}, whose reset is delta-seconds, or an epoch
 *       time in seconds (GitHub) or milliseconds, told apart by size: no window lasts 31 years.</li>
 * </ul>
 * Never throws; a value it cannot read is as if absent, and numbers saturate rather than overflow.
 */
public final class RateLimitHeaders {

    /** A delta or count beyond this (317,000 years) is "a very long time", "very many"; an epoch time in milliseconds still fits. */
    static final long MAX = 10_000_000_000_000L;
    /** An X-RateLimit-Reset at least this large is an epoch time in seconds (September 2001 on), not a delta. */
    private static final long EPOCH_SECONDS_FROM = 1_000_000_000L;
    /** ... and at least this large, in milliseconds (March 1973 on, in milliseconds). */
    private static final long EPOCH_MILLIS_FROM = 100_000_000_000L;
    /**
     * A reset named as a moment may lie this far in the past and still be taken as "now": it is
     * rounded to whole seconds, and the response may have been on its way across the moment.
     */
    static final long PAST_TOLERANCE_MILLIS = 2_000;

    private String rateLimit;
    private String rateLimitPolicy;
    private String ietfLimit;
    private String ietfRemaining;
    private String ietfReset;
    private String xLimit;
    private String xRemaining;
    private String xReset;

    /** Whether a header of this name may be a hint: the adapter need offer no other. */
    public static boolean isHint(String name) {
        return name != null && (startsWith(name, "ratelimit") || startsWith(name, "x-ratelimit") || startsWith(name, "x-rate-limit"));
    }

    /** One header of the response; any other name, a second value of the same name, or null, is ignored. */
    public void offer(String name, String value) {
        if (name == null || value == null) {
            return;
        }
        String n = name.trim();
        if (n.equalsIgnoreCase("RateLimit")) {
            rateLimit = first(rateLimit, value);
        } else if (n.equalsIgnoreCase("RateLimit-Policy")) {
            rateLimitPolicy = first(rateLimitPolicy, value);
        } else if (n.equalsIgnoreCase("RateLimit-Limit")) {
            ietfLimit = first(ietfLimit, value);
        } else if (n.equalsIgnoreCase("RateLimit-Remaining")) {
            ietfRemaining = first(ietfRemaining, value);
        } else if (n.equalsIgnoreCase("RateLimit-Reset")) {
            ietfReset = first(ietfReset, value);
        } else if (n.equalsIgnoreCase("X-RateLimit-Limit") || n.equalsIgnoreCase("X-Rate-Limit-Limit")) {
            xLimit = first(xLimit, value);
        } else if (n.equalsIgnoreCase("X-RateLimit-Remaining") || n.equalsIgnoreCase("X-Rate-Limit-Remaining")) {
            xRemaining = first(xRemaining, value);
        } else if (n.equalsIgnoreCase("X-RateLimit-Reset") || n.equalsIgnoreCase("X-Rate-Limit-Reset")) {
            xReset = first(xReset, value);
        }
    }

    /** What the offered headers say, read at {@code nowMillis}; null when they say nothing usable. */
    public RateLimitHint hint(long nowMillis) {
        try {
            RateLimitHint hint = structured();
            if (hint == null) {
                hint = separate("RateLimit-*", ietfLimit, ietfRemaining, ietfReset, false, nowMillis);
            }
            if (hint == null) {
                hint = separate("X-RateLimit-*", xLimit, xRemaining, xReset, true, nowMillis);
            }
            return hint;
        } catch (RuntimeException e) {
            return null; // a parser bug must never reach the application: the response is read as if it had no hint
        }
    }

    /** The draft's {@code RateLimit} field, with {@code RateLimit-Policy} for the limit and window. */
    private RateLimitHint structured() {
        if (rateLimit == null) {
            return null;
        }
        long remaining = RateLimitHint.UNKNOWN;
        long reset = RateLimitHint.UNKNOWN;
        long limit = RateLimitHint.UNKNOWN;
        for (String member : rateLimit.split(",", 16)) {
            // Drafts 05-07: a dictionary, one key a member. Draft 08 on: an item a policy, r and t its parameters;
            // several policies: the one with the fewest left governs.
            String[] parts = member.split(";", 16);
            long r = RateLimitHint.UNKNOWN;
            long t = RateLimitHint.UNKNOWN;
            for (String part : parts) {
                int eq = part.indexOf('=');
                if (eq < 0) {
                    continue;
                }
                String key = part.substring(0, eq).trim();
                String value = part.substring(eq + 1);
                if (key.equalsIgnoreCase("remaining") || key.equals("r")) {
                    r = count(value);
                } else if (key.equalsIgnoreCase("reset") || key.equals("t")) {
                    t = millis(value);
                } else if (key.equalsIgnoreCase("limit") || key.equals("q")) {
                    limit = count(value);
                }
            }
            if (r != RateLimitHint.UNKNOWN && (remaining == RateLimitHint.UNKNOWN || r < remaining)) {
                remaining = r;
                if (t != RateLimitHint.UNKNOWN) {
                    reset = t;
                }
            } else if (t != RateLimitHint.UNKNOWN && reset == RateLimitHint.UNKNOWN) {
                reset = t;
            }
        }
        if (remaining == RateLimitHint.UNKNOWN) {
            return null;
        }
        long window = RateLimitHint.UNKNOWN;
        if (rateLimitPolicy != null) {
            long[] policy = policy(rateLimitPolicy);
            limit = limit != RateLimitHint.UNKNOWN ? limit : policy[0];
            window = policy[1];
        }
        return new RateLimitHint("RateLimit", limit, remaining, reset, window, false);
    }

    /** {@code -Limit}, {@code -Remaining} and {@code -Reset} as three fields. */
    private static RateLimitHint separate(String source, String limitField, String remainingField, String resetField,
                                          boolean resetMayBeEpoch, long nowMillis) {
        long remaining = remainingField == null ? RateLimitHint.UNKNOWN : count(remainingField);
        if (remaining == RateLimitHint.UNKNOWN) {
            return null;
        }
        long[] policy = limitField == null ? new long[] {RateLimitHint.UNKNOWN, RateLimitHint.UNKNOWN} : policy(limitField);
        long reset = RateLimitHint.UNKNOWN;
        boolean past = false;
        if (resetField != null) {
            long read = millis(resetField);
            if (read == RateLimitHint.UNKNOWN) {
                long date = dateOf(resetField, nowMillis);
                if (date != HttpDate.INVALID) {
                    read = date - nowMillis;
                    past = read < -PAST_TOLERANCE_MILLIS;
                }
            } else if (resetMayBeEpoch && read >= EPOCH_SECONDS_FROM * 1000) {
                long epochMillis = read >= EPOCH_MILLIS_FROM * 1000 ? read / 1000 : read;
                read = epochMillis - nowMillis;
                past = read < -PAST_TOLERANCE_MILLIS;
            }
            reset = Math.max(0, read);
        }
        return new RateLimitHint(source, policy[0], remaining, reset, policy[1], past);
    }

    /**
     * A policy, {@code 20;w=2}, {@code "default";q=20;w=2} or {@code 10, 10;w=1, 50;w=60} (the first draft's
     * limit and its quota policies): the first member's limit, and the window of the first member that names
     * one for that limit.
     */
    private static long[] policy(String field) {
        long limit = RateLimitHint.UNKNOWN;
        long window = RateLimitHint.UNKNOWN;
        String[] members = field.split(",", 16);
        for (int m = 0; m < members.length && window == RateLimitHint.UNKNOWN; m++) {
            long memberLimit = RateLimitHint.UNKNOWN;
            long memberWindow = RateLimitHint.UNKNOWN;
            String[] parts = members[m].split(";", 16);
            for (int i = 0; i < parts.length; i++) {
                String part = parts[i];
                int eq = part.indexOf('=');
                if (eq < 0) {
                    if (i == 0) {
                        memberLimit = count(part);
                    }
                    continue;
                }
                String key = part.substring(0, eq).trim();
                if (key.equals("q")) {
                    memberLimit = count(part.substring(eq + 1));
                } else if (key.equals("w")) {
                    memberWindow = millis(part.substring(eq + 1));
                }
            }
            if (m == 0) {
                limit = memberLimit;
            }
            if (memberLimit == limit) {
                window = memberWindow;
            }
        }
        return new long[] {limit, window};
    }

    /** A non-negative integer, saturating at {@link #MAX}; UNKNOWN for anything else. */
    static long count(String raw) {
        long millis = millis(raw);
        return millis == RateLimitHint.UNKNOWN || millis % 1000 != 0 ? RateLimitHint.UNKNOWN : millis / 1000;
    }

    /**
     * Seconds, whole or with a fraction ({@code 1.5}: some gateways send them), as milliseconds,
     * saturating at {@link #MAX} seconds; UNKNOWN for a sign, an exponent, a unit, or nothing.
     */
    static long millis(String raw) {
        int start = RetryAfterParser.valueStart(raw);
        int end = RetryAfterParser.valueEnd(raw, start);
        long whole = 0;
        int i = start;
        for (; i < end && RetryAfterParser.isAsciiDigit(raw.charAt(i)); i++) {
            whole = Math.min(MAX, whole * 10 + (raw.charAt(i) - '0'));
        }
        if (i == start) {
            return RateLimitHint.UNKNOWN;
        }
        long fraction = 0;
        if (i < end && raw.charAt(i) == '.') {
            int digits = 0;
            for (i++; i < end && RetryAfterParser.isAsciiDigit(raw.charAt(i)); i++, digits++) {
                if (digits < 3) {
                    fraction = fraction * 10 + (raw.charAt(i) - '0');
                }
            }
            for (; digits < 3; digits++) {
                fraction *= 10;
            }
        }
        if (i != end) {
            return RateLimitHint.UNKNOWN;
        }
        return whole * 1000 + fraction;
    }

    private static long dateOf(String raw, long nowMillis) {
        String trimmed = raw.trim();
        return trimmed.isEmpty() ? HttpDate.INVALID : HttpDate.parseEpochMillis(trimmed, 0, trimmed.length(), nowMillis);
    }

    private static String first(String held, String offered) {
        return held != null ? held : offered;
    }

    private static boolean startsWith(String name, String prefix) {
        return name.regionMatches(true, 0, prefix, 0, prefix.length());
    }
}
