package dev.retryafter.it.harness;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * Loopback ports no portal of this JVM has had. The agent keeps what it learned of a portal by host and port for the
 * JVM's life, and the system gives a freed port again: in the attached suite one test's portal then inherited the
 * streak another's had left open, and its first refusals held the host at once, as refused for over a minute.
 */
public final class FreshPorts {

    private static final Set<Integer> HAD = ConcurrentHashMap.newKeySet();

    /** What binds a server, and may fail as binding does. */
    public interface Binding<T> {
        T bind() throws IOException;
    }

    private FreshPorts() {
    }

    /** Binds until the port is one not had before; a port had before is kept bound meanwhile, so it is not given again. */
    public static <T> T bind(Binding<T> binding, ToIntFunction<T> port, Consumer<T> release) throws IOException {
        List<T> hadBefore = new ArrayList<>();
        try {
            while (true) {
                T candidate = binding.bind();
                if (HAD.add(port.applyAsInt(candidate))) {
                    return candidate;
                }
                hadBefore.add(candidate);
            }
        } finally {
            hadBefore.forEach(release);
        }
    }

    /** A port a server bound some other way has: none of these gets it again. */
    public static void had(int port) {
        HAD.add(port);
    }
}
