package dev.retryafter.agent.engine;

import java.io.IOException;
import java.time.Instant;

/**
 * A request to a held host, failed at once without touching the network. An {@link IOException},
 * so an application that handles network failures handles this one too.
 */
public final class HostHeldException extends IOException {

    private static final long serialVersionUID = 1L;

    private final String host;
    private final long untilMillis;
    private final boolean probeOut;

    HostHeldException(String host, long untilMillis, String reason) {
        this(host, untilMillis, reason, false);
    }

    HostHeldException(String host, long untilMillis, String reason, boolean probeOut) {
        super("retry-after-agent: " + host + " is held until " + Instant.ofEpochMilli(untilMillis) + " (" + reason
                + "); the request was not sent");
        this.host = host;
        this.untilMillis = untilMillis;
        this.probeOut = probeOut;
    }

    /** Failed while the one probe after a hold is out: the hold's own line already said so, and the moment is only a guess. */
    public boolean whileProbing() {
        return probeOut;
    }

    public String host() {
        return host;
    }

    public long untilMillis() {
        return untilMillis;
    }
}
