package dev.retryafter.demo.portal;

/** The ways a municipal portal's {@code Retry-After} lies, one per simulated portal. */
public enum Behaviour {
    /** Seconds until the window resets: the header a client can obey. */
    TRUTHFUL("truthful"),
    /** Always "0": obeying it is a hot request loop. */
    ALWAYS_ZERO("always-zero"),
    /** Always "3600", whatever the real window: obeying it stalls the run for an hour. */
    CONSTANT_OVERSTATED("constant-3600"),
    /** A random number of seconds, uncorrelated with the window. */
    UNRELIABLE("unreliable"),
    /** Refusals carry no header at all. */
    ABSENT("absent"),
    /** An HTTP-date an hour in the past: it parses, and means "now". */
    PAST_DATE("past-date"),
    /** Refusals are truthful, and every 200 carries "Retry-After: 120" as well. */
    HEADER_ON_SUCCESS("header-on-200"),
    /** 503 instead of 429, with a truthful header. */
    SERVICE_UNAVAILABLE("503-instead"),
    /** Truthful until the change, then a constant "3600": a portal upgrade. */
    DRIFTS_TO_CONSTANT("truthful-then-3600"),
    /** Truthful, and the real limit doubles at the change. */
    LIMIT_DOUBLES("limit-doubles");

    private final String label;

    Behaviour(String label) {
        this.label = label;
    }

    /** A short name for tables and command lines. */
    public String label() {
        return label;
    }

    public static Behaviour fromLabel(String label) {
        for (Behaviour b : values()) {
            if (b.label.equals(label) || b.name().equalsIgnoreCase(label)) {
                return b;
            }
        }
        throw new IllegalArgumentException("no portal behaviour named " + label);
    }
}
