package dev.retryafter.agent.engine;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.report.DecisionLog;
import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A header right for some streaks and a third of the wait for others moves a host between truthful and unreliable
 * as streaks come and go (dozens of times in a long run): the log warns of it a few times, says it keeps changing,
 * then goes quiet. (Each streak's refusals are told one moment, so the header is never caught contradicting itself.)
 */
class CategoryWarningsTest {

    @Test
    void aCategoryThatKeepsChangingIsWarnedOfThreeTimes() throws Exception {
        VirtualClock clock = new VirtualClock();
        Random jitter = new Random(11);
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, "UTF-8"));
        try {
            DecisionLog log = new DecisionLog(AgentLog.logger(), clock);
            RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).random(jitter::nextDouble)
                    .listener(log)
                    .policies(PolicyLookup.everyHost(Policy.builder().maxSleepMillis(120_000).maxAttempts(8).build()))
                    .build();
            Random random = new Random(8);
            long blockedUntil = Long.MIN_VALUE;
            int shortenedBy = 1;
            int admitted = 0;
            for (int i = 0; i < 2_000; i++) {
                Call call = engine.open("penalty-box.example", 443, true);
                do {
                    call.awaitTurn();
                    long now = clock.millis();
                    boolean refused = now < blockedUntil || ++admitted % 10 == 0;
                    if (refused && now >= blockedUntil) {
                        blockedUntil = now + 20_000;
                        shortenedBy = random.nextInt(5) == 0 ? 3 : 1;
                    }
                    String header = Long.toString((blockedUntil - now + 999) / 1000 / shortenedBy);
                    call.onResponse(refused ? 429 : 200, refused ? header : null);
                    call.endAttempt();
                    clock.advance(50);
                } while (call.retryRequested());
            }
        } finally {
            System.setErr(err);
        }
        String text = new String(captured.toByteArray(), StandardCharsets.UTF_8);
        long categoryChanges = count(text, "penalty-box.example:443 category changed");
        assertTrue(categoryChanges >= DecisionLog.CATEGORY_WARNINGS + 2, "the portal moves the category often: " + categoryChanges);
        assertEquals(DecisionLog.CATEGORY_WARNINGS, count(text, "WARN retry-after-agent - penalty-box.example:443 category changed"), text);
        assertEquals(1, count(text, "it keeps changing"), text);
        assertEquals(categoryChanges - DecisionLog.CATEGORY_WARNINGS, count(text, "INFO retry-after-agent - penalty-box.example:443 category changed"));
    }

    private static long count(String text, String part) {
        long n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }
}
