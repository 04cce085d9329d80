package dev.retryafter.agent.engine;

import dev.retryafter.agent.testing.RecordingListener;
import dev.retryafter.agent.testing.VirtualClock;

import java.util.Random;

/** An engine in virtual time with seeded jitter and a recording listener. */
final class EngineFixture {

    final VirtualClock clock = new VirtualClock();
    final RecordingListener listener = new RecordingListener();
    final RetryEngine engine;

    EngineFixture(Policy policy) {
        Random random = new Random(11);
        engine = RetryEngine.builder()
                .clock(clock).sleeper(clock).random(random::nextDouble)
                .listener(listener).policies(PolicyLookup.everyHost(policy))
                .build();
    }

    HostState host() {
        return engine.hosts().iterator().next();
    }

    Category category() {
        return host().category();
    }
}
