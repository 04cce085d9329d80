package dev.retryafter.agent;

import java.lang.reflect.Method;
import java.security.ProtectionDomain;
import java.util.Map;

/**
 * Defines classes in the bootstrap class loader with the JDK's internal {@code Unsafe}. Loaded by a
 * class loader of its own, so that the one package it needs, {@code jdk.internal.misc}, is exported
 * to this class's module alone, never to the application's. Uses java.base types only.
 */
public final class BootstrapDefiner {

    private BootstrapDefiner() {
    }

    public static void define(Map<String, byte[]> classes) throws ReflectiveOperationException {
        Class<?> unsafeType = Class.forName("jdk.internal.misc.Unsafe");
        Object unsafe = unsafeType.getMethod("getUnsafe").invoke(null);
        Method defineClass = unsafeType.getMethod("defineClass",
                String.class, byte[].class, int.class, int.class, ClassLoader.class, ProtectionDomain.class);
        for (Map.Entry<String, byte[]> type : classes.entrySet()) {
            defineClass.invoke(unsafe, type.getKey(), type.getValue(), 0, type.getValue().length, null, null);
        }
    }
}
