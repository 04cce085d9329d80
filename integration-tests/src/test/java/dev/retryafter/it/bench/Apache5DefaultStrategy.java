package dev.retryafter.it.bench;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.header.RetryAfter;
import dev.retryafter.agent.engine.header.RetryAfterParser;

/**
 * Apache HttpClient 5's {@code DefaultHttpRequestRetryStrategy} as shipped (checked against 5.6.5):
 * one retry of a 429 or 503; the wait is a positive Retry-After, seconds or date, with no ceiling,
 * otherwise the 1 s default interval. The second refusal goes to the application.
 */
final class Apache5DefaultStrategy extends UnpacedStrategy {

    static final int MAX_RETRIES = 1;
    static final long DEFAULT_RETRY_INTERVAL_MILLIS = 1_000;

    private final Clock clock;

    Apache5DefaultStrategy(Clock clock) {
        this.clock = clock;
    }

    @Override
    Next onRefusal(int attempt, String retryAfter) {
        if (attempt > MAX_RETRIES) {
            return Next.DONE;
        }
        return Next.resendAfter(retryInterval(retryAfter));
    }

    /** "0" and a date in the past are not positive, so they get the default interval. */
    private long retryInterval(String retryAfter) {
        RetryAfter header = RetryAfterParser.parse(retryAfter, clock.millis());
        return header.isUsable() && header.millis() > 0 ? header.millis() : DEFAULT_RETRY_INTERVAL_MILLIS;
    }
}
