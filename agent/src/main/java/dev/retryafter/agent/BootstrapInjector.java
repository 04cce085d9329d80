package dev.retryafter.agent;

import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.loading.ClassInjector;

import java.io.File;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Defines the {@code bootstrap} package's classes in the bootstrap class loader, where every class,
 * {@code java.net.http}'s included, can see them. Defined directly rather than by appending a jar
 * to the bootstrap search path, which would turn class-data sharing off for the application.
 * Must run before any other agent class names them.
 */
final class BootstrapInjector {

    static final String[] CLASSES = {
            "dev.retryafter.agent.bootstrap.AgentHooks",
            "dev.retryafter.agent.bootstrap.AgentHooks$Dispatcher"};

    private BootstrapInjector() {
    }

    static void inject(Instrumentation instrumentation) throws IOException {
        if (alreadyInBootstrap()) {
            return; // attached a second time
        }
        Map<String, byte[]> classes = new LinkedHashMap<>();
        ClassFileLocator locator = ClassFileLocator.ForClassLoader.of(BootstrapInjector.class.getClassLoader());
        for (String name : CLASSES) {
            classes.put(name, locator.locate(name).resolve());
        }
        ClassInjector.UsingUnsafe.Factory unsafe = ClassInjector.UsingUnsafe.Factory.resolve(instrumentation);
        if (unsafe.isAvailable()) {
            unsafe.make(null, null).injectRaw(classes);
        } else {
            File folder = Files.createTempDirectory("retry-after-agent").toFile();
            folder.deleteOnExit();
            ClassInjector.UsingInstrumentation.of(folder, ClassInjector.UsingInstrumentation.Target.BOOTSTRAP, instrumentation)
                    .injectRaw(classes);
        }
    }

    private static boolean alreadyInBootstrap() {
        try {
            Class.forName(CLASSES[0], false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
