package dev.retryafter.agent.report;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostExplanationTest {

    /**
     * A portal that lets 5 through in each 2 s and answers the rest 429 with {@code Retry-After: 0}: the explanation
     * names each cause its requests waited for, by the log's name and words, the pace, the refusals by status.
     */
    @Test
    void itSaysWhatTheRequestsWaitedForCauseByCause() throws Exception {
        VirtualClock clock = new VirtualClock();
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).random(() -> 0.5)
                .policies(PolicyLookup.everyHost(Policy.DEFAULTS)).build();
        long windowStart = clock.millis();
        int inWindow = 0;
        for (int record = 0; record < 60; record++) {
            Call call = engine.open("portal.example", 443, true);
            do {
                call.awaitTurn();
                if (clock.millis() - windowStart >= 2_000) {
                    windowStart += (clock.millis() - windowStart) / 2_000 * 2_000;
                    inWindow = 0;
                }
                boolean admitted = ++inWindow <= 5;
                call.onResponse(admitted ? 200 : 429, admitted ? null : "0");
                call.endAttempt();
                clock.advance(50);
            } while (call.retryRequested());
        }
        HostState host = engine.host("portal.example:443");
        String text = HostExplanation.of(host.snapshot(clock.millis()), clock.millis());
        assertTrue(text.startsWith("portal.example:443 (policy default), as of "), text);
        assertTrue(text.contains("  requests waited ") && text.contains(" s  PACE ") && text.contains("the host's pace"), text);
        assertTrue(text.lines().anyMatch(line -> line.matches(" +\\d+\\.\\d s  HEADER_\\w+ +.*")), text);
        assertTrue(text.contains("  pace: ") && text.contains("/min, one request every ") && text.contains("  last reading: 5 let through in "), text);
        assertTrue(text.contains(" refused (429: "), text);
        assertTrue(text.contains("; not held now") && text.contains("  last refusal, "), text);
        assertFalse(text.contains("never truthful"), text);
    }

    @Test
    void itSaysWhyAHostsRetryAfterIsNeverTruthful() throws Exception {
        VirtualClock clock = new VirtualClock();
        RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).random(() -> 0.5)
                .policies(PolicyLookup.everyHost(Policy.DEFAULTS)).build();
        for (int i = 0; i < 20; i++) { // the slow start: one in flight, two after twenty let through
            Call call = engine.open("portal.example", 443, true);
            call.awaitTurn();
            call.onResponse(200, null);
            call.endAttempt();
        }
        Call first = engine.open("portal.example", 443, true);
        Call second = engine.open("portal.example", 443, true);
        first.awaitTurn();
        second.awaitTurn();
        first.onResponse(429, "5");
        second.onResponse(429, "50"); // in flight together: one of the two moments is wrong
        first.endAttempt();
        second.endAttempt();
        HostState host = engine.host("portal.example:443");
        String text = HostExplanation.of(host.snapshot(clock.millis()), clock.millis());
        assertTrue(text.contains("  category: unknown; never truthful: Retry-After named moments 45.0s apart to two refusals 0.0s apart"),
                text);
    }
}
