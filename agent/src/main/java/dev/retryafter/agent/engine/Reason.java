package dev.retryafter.agent.engine;

/** Why a refusal led to the wait it did. Each one is named in the decision log line. */
public enum Reason {
    HEADER_HONOURED("header honoured (truthful)"),
    HEADER_BEYOND_CEILING("truthful header beyond max-sleep: waiting max-sleep; the host is held if it then names the same time again"),
    HEADER_IGNORED_ALWAYS_ZERO("header ignored (always zero): own backoff"),
    HEADER_IGNORED_OVERSTATED("header ignored (constant overstated): twice own backoff"),
    HEADER_AS_HINT("max(header, backoff): header not proven truthful"),
    UNPROVEN_HEADER_BEYOND_CEILING("header beyond max-sleep, not proven truthful: own backoff"),
    NO_HEADER("no header: own backoff"),
    UNUSABLE_HEADER("unusable header: own backoff"),
    HOLD_CONFIRMED("truthful header beyond max-sleep, confirmed by a second refusal: host held until the time it named");

    private final String text;

    Reason(String text) {
        this.text = text;
    }

    public String text() {
        return text;
    }
}
