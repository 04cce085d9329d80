package dev.retryafter.agent.store.redis;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The fleet store's down, back and refused lines, kept for the test to count and read. */
final class RecordingEvents implements RedisLink.Events {

    final List<String> unavailable = new CopyOnWriteArrayList<>();
    final List<String> restored = new CopyOnWriteArrayList<>();
    final List<String> refused = new CopyOnWriteArrayList<>();

    @Override
    public void line(RedisLink.Kind kind, String line) {
        (kind == RedisLink.Kind.UNAVAILABLE ? unavailable : kind == RedisLink.Kind.RESTORED ? restored : refused).add(line);
    }

    List<String> all() {
        List<String> lines = new java.util.ArrayList<>(unavailable);
        lines.addAll(restored);
        lines.addAll(refused);
        return lines;
    }
}
