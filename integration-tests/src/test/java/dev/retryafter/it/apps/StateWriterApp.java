package dev.retryafter.it.apps;

import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.store.file.FileKnowledgeStore;
import dev.retryafter.agent.engine.learn.PaceSchedule;

import java.nio.file.Paths;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Writes the state of many hosts to a state file again and again, saying when each write begins
 * and ends, until it is killed: what a scraper with a large state does every state-interval.
 * {@code StateWriterApp FILE HOSTS}
 */
public final class StateWriterApp {

    private StateWriterApp() {
    }

    public static void main(String[] args) throws Exception {
        Clock clock = Clock.system();
        FileKnowledgeStore store = FileKnowledgeStore.open(Paths.get(args[0]), clock, 7 * 86_400_000L,
                warning -> System.out.println("warning " + warning));
        int hosts = Integer.parseInt(args[1]);
        for (int write = 1; ; write++) {
            long now = clock.millis();
            for (int i = 0; i < hosts; i++) {
                String host = "host-" + i + ".example:443";
                store.recordRefusal(host, now, now, OptionalLong.of(30_000), false);
                store.recordRecovery(host, now + 1);
                store.learn(host, now, Optional.of(new PaceSchedule(0.5 + write, now, 200_000)), OptionalInt.of(write));
                store.imposeNotBefore(host, now + 600_000);
            }
            System.out.println("writing " + write);
            long start = System.nanoTime();
            store.save();
            System.out.println("saved " + write + " in " + (System.nanoTime() - start) / 1_000_000 + " ms");
        }
    }
}
