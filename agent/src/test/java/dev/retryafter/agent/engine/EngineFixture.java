package dev.retryafter.agent.engine;

import dev.retryafter.agent.engine.knowledge.InMemoryKnowledgeStore;
import dev.retryafter.agent.engine.knowledge.KnowledgeStore;
import dev.retryafter.agent.testing.RecordingListener;
import dev.retryafter.agent.testing.VirtualClock;

import java.util.Random;

/** An engine in virtual time with seeded jitter and a recording listener. */
final class EngineFixture {

    final VirtualClock clock;
    final RecordingListener listener = new RecordingListener();
    final RetryEngine engine;

    EngineFixture(Policy policy) {
        this(new VirtualClock(), policy, new InMemoryKnowledgeStore());
    }

    /** A run of the default policy on {@code clock} whose knowledge is {@code store}'s: a second run, or one of a fleet. */
    EngineFixture(VirtualClock clock, KnowledgeStore store) {
        this(clock, Policy.DEFAULTS, store);
    }

    private EngineFixture(VirtualClock clock, Policy policy, KnowledgeStore store) {
        this.clock = clock;
        Random random = new Random(11);
        engine = RetryEngine.builder()
                .clock(clock).sleeper(clock).random(random::nextDouble)
                .listener(listener).policies(PolicyLookup.everyHost(policy)).knowledge(store)
                .build();
    }

    /** One exchange with {@code host}:443: a call opened, its turn taken, answered {@code status} (and {@code retryAfter}), ended. */
    Call answered(String host, int status, String retryAfter) throws Exception {
        Call call = engine.open(host, 443, true);
        call.awaitTurn();
        call.onResponse(status, retryAfter);
        call.endAttempt();
        return call;
    }

    HostState host() {
        return engine.hosts().iterator().next();
    }

    Category category() {
        return host().category();
    }
}
