package dev.retryafter.agent.bootstrap;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.instrument.ClassFiles;
import dev.retryafter.agent.instrument.JavaVersion;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Defines the {@code bootstrap} package's classes in the bootstrap class loader, where every class,
 * {@code java.net.http}'s included, can see them. Must run before any other agent class names them.
 *
 * <p>Defined directly, through the JDK's internal {@code Unsafe}, rather than by appending a jar to
 * the bootstrap search path: that turns class-data sharing off for the application's classes and
 * slows its start-up. Byte Buddy's own Unsafe injector reaches for {@code sun.misc.Unsafe}, which
 * Java 24 and later warn about. On Java 8, which has neither modules nor {@code jdk.internal.misc},
 * {@code sun.misc.Unsafe.defineClass} does the same. The jar is the fallback, should a JDK close the
 * direct way.
 */
public final class BootstrapInjector {

    /** The interface first: the class names it. */
    static final String[] CLASSES = {
            "dev.retryafter.agent.bootstrap.AgentHooks$Dispatcher",
            "dev.retryafter.agent.bootstrap.AgentHooks"};

    /** Named, not linked: it is built for Java 9 (see {@link #defineWithInternalUnsafe}). */
    private static final String DEFINER = "dev.retryafter.agent.bootstrap.BootstrapDefiner";

    private BootstrapInjector() {
    }

    public static void inject(Instrumentation instrumentation) throws Exception {
        if (alreadyInBootstrap()) {
            return; // attached a second time
        }
        Map<String, byte[]> classes = new LinkedHashMap<>();
        for (String name : CLASSES) {
            classes.put(name, bytes(name));
        }
        try {
            defineDirectly(instrumentation, classes);
        } catch (ReflectiveOperationException | RuntimeException e) {
            AgentLog.logger().debug("defining the hooks directly failed; appending them to the bootstrap search path", e);
            appendToBootstrapSearchPath(instrumentation, classes);
        }
    }

    private static void defineDirectly(Instrumentation instrumentation, Map<String, byte[]> classes)
            throws ReflectiveOperationException {
        if (JavaVersion.feature() < 9) {
            defineWithSunMiscUnsafe(classes);
        } else {
            defineWithInternalUnsafe(instrumentation, classes);
        }
    }

    /**
     * Java 8 has no modules and no {@code jdk.internal.misc}; its {@code sun.misc.Unsafe} still has
     * {@code defineClass} (removed in 11), and nothing there warns about it.
     */
    private static void defineWithSunMiscUnsafe(Map<String, byte[]> classes) throws ReflectiveOperationException {
        Class<?> unsafeType = Class.forName("sun.misc.Unsafe");
        Field theUnsafe = unsafeType.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        Object unsafe = theUnsafe.get(null);
        Method defineClass = unsafeType.getMethod("defineClass",
                String.class, byte[].class, int.class, int.class, ClassLoader.class, ProtectionDomain.class);
        for (Map.Entry<String, byte[]> type : classes.entrySet()) {
            defineClass.invoke(unsafe, type.getKey(), type.getValue(), 0, type.getValue().length, null, null);
        }
    }

    /**
     * Java 9 and later: the {@code BootstrapDefiner}, in a class loader of its own, exports
     * {@code jdk.internal.misc} to its own module alone and defines the classes.
     */
    @SuppressWarnings("unchecked")
    private static void defineWithInternalUnsafe(Instrumentation instrumentation, Map<String, byte[]> classes)
            throws ReflectiveOperationException {
        Object definer = IsolatedClass.newInstance(DEFINER);
        ((BiConsumer<Instrumentation, Map<String, byte[]>>) definer).accept(instrumentation, classes);
    }

    private static void appendToBootstrapSearchPath(Instrumentation instrumentation, Map<String, byte[]> classes) throws IOException {
        Path jar = Files.createTempFile("retry-after-agent-bootstrap", ".jar");
        jar.toFile().deleteOnExit();
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (Map.Entry<String, byte[]> type : classes.entrySet()) {
                out.putNextEntry(new JarEntry(type.getKey().replace('.', '/') + ".class"));
                out.write(type.getValue());
                out.closeEntry();
            }
        }
        instrumentation.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
    }

    private static byte[] bytes(String className) {
        try {
            return ClassFiles.read(BootstrapInjector.class.getClassLoader(), className);
        } catch (IOException e) {
            throw new IllegalStateException("the agent jar has no " + className + " (" + e + ")");
        }
    }

    private static boolean alreadyInBootstrap() {
        try {
            Class.forName(CLASSES[1], false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
