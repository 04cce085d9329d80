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
    HOLD_CONFIRMED("header beyond max-sleep, confirmed by a second refusal naming the same moment: host held until then"),
    HOLD_PERSISTENT("refused for longer than max-sleep with nothing let through: host held, then probed one request at a time"),
    HOLD_BLOCKED("a block status after refusals: host held, then probed one request at a time"),
    HOLD_HINTED("its believed rate-limit hint says none are left until a moment beyond max-sleep: host held until then");

    private final String text;

    Reason(String text) {
        this.text = text;
    }

    public String text() {
        return text;
    }
}
