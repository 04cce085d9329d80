package dev.retryafter.it.bench;

import java.util.List;

/** A strategy under test: its name in the table, the rule it follows in one line, and how to make one. */
record Contender(String name, String rule, Strategy.Factory factory) {

    static final String AGENT = "agent";

    /** Side by side in every cell, in this order. */
    static final List<Contender> ALL = List.of(
            new Contender("literal",
                    "honours the header as sent (RFC 9110); 1 s when absent or unusable; gives up after "
                            + LiteralStrategy.MAX_ATTEMPTS + " attempts",
                    (clock, scheduler, seed) -> new LiteralStrategy(clock)),
            new Contender("apache5-default",
                    "HttpClient 5 DefaultHttpRequestRetryStrategy: one retry of 429/503 after a positive Retry-After "
                            + "(no ceiling), else 1 s; then the refusal goes to the application",
                    (clock, scheduler, seed) -> new Apache5DefaultStrategy(clock)),
            new Contender("backoff-only",
                    "ignores the header; full jitter uniform(0, min(60 s, 0.5 s * 2^(attempt-1))), at least 1 s; gives up after "
                            + BackoffOnlyStrategy.MAX_ATTEMPTS + " attempts",
                    (clock, scheduler, seed) -> new BackoffOnlyStrategy(seed)),
            new Contender("seed",
                    "the seed guide as written: its sanitise() (1 s / 300 s), characterise() fed measured recovery, "
                            + "pace fixed at 0.8 x observed ceiling per window; 429 only; " + SeedGuideStrategy.ATTEMPTS + " attempts",
                    SeedGuideStrategy::new),
            new Contender(AGENT,
                    "this project's RetryEngine with Policy.DEFAULTS, via Call.turn()/onResponse()",
                    AgentStrategy::new));
}
