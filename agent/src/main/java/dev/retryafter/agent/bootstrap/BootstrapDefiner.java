package dev.retryafter.agent.bootstrap;

import jdk.internal.misc.Unsafe;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Defines classes in the bootstrap class loader with the JDK's internal {@code Unsafe}. Loaded by a
 * class loader of its own, so that the one package it needs, {@code jdk.internal.misc}, is exported
 * to this class's module alone, never to the application's. Uses java.base and java.instrument
 * types only.
 *
 * <p>Built for Java 9 against {@code jdk.internal.misc} (see the pom) and called directly, not by
 * reflection: on Java 18 and later each reflective call of a new shape spins method handle classes,
 * and the six-argument calls here once cost some 60 ms of {@code premain}.
 */
public final class BootstrapDefiner implements BiConsumer<Instrumentation, Map<String, byte[]>> {

    @Override
    public void accept(Instrumentation instrumentation, Map<String, byte[]> classes) {
        instrumentation.redefineModule(Object.class.getModule(), Set.of(),
                Map.of("jdk.internal.misc", Set.of(BootstrapDefiner.class.getModule())), Map.of(), Set.of(), Map.of());
        define(classes);
    }

    /** Apart from {@link #accept}: {@code Unsafe} is resolved at its first use, which must come after the export. */
    private static void define(Map<String, byte[]> classes) {
        Unsafe unsafe = Unsafe.getUnsafe();
        for (Map.Entry<String, byte[]> type : classes.entrySet()) {
            unsafe.defineClass(type.getKey(), type.getValue(), 0, type.getValue().length, null, null);
        }
    }
}
