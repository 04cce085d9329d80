package dev.retryafter.it.bench;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.header.RetryAfter;
import dev.retryafter.agent.engine.header.RetryAfterParser;

/** An RFC-compliant client: waits exactly what the header says, however little or much. */
final class LiteralStrategy extends UnpacedStrategy {

    /** Compliance says nothing about giving up; without a cap a hot loop on "0" would never end. */
    static final int MAX_ATTEMPTS = 10;

    /** What a compliant client does when there is nothing to obey. */
    static final long NO_HEADER_WAIT_MILLIS = 1_000;

    private final Clock clock;

    LiteralStrategy(Clock clock) {
        this.clock = clock;
    }

    @Override
    Next onRefusal(int attempt, String retryAfter) {
        if (attempt >= MAX_ATTEMPTS) {
            return Next.DONE;
        }
        RetryAfter header = RetryAfterParser.parse(retryAfter, clock.millis());
        return Next.resendAfter(header.isUsable() ? header.millis() : NO_HEADER_WAIT_MILLIS);
    }
}
