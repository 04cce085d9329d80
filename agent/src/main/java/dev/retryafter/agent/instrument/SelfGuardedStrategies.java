package dev.retryafter.agent.instrument;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The retry strategy classes whose own {@code retryRequest} the agent changed to stand aside for a
 * refusal it governs (Apache 5's default one): a strategy of exactly such a class needs no
 * {@link RetryStrategyGuard} in front of it, and is asked about every response without the guard's
 * reflection. Known by class loader and name as each is changed; a class the agent failed to change
 * is not here, and its strategies are guarded as any other.
 */
public final class SelfGuardedStrategies {

    /** Weakly by loader: an application's class loader that goes away takes its entry with it. */
    private final Map<ClassLoader, Set<String>> changed = new WeakHashMap<>();

    synchronized void changed(ClassLoader loader, String className) {
        Set<String> names = changed.get(loader);
        if (names == null) {
            names = new HashSet<>();
            changed.put(loader, names);
        }
        names.add(className);
    }

    /** Asked once for each client built, not for each request. */
    public synchronized boolean covers(Class<?> strategyClass) {
        Set<String> names = changed.get(strategyClass.getClassLoader());
        return names != null && names.contains(strategyClass.getName());
    }
}
