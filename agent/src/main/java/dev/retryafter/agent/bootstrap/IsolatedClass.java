package dev.retryafter.agent.bootstrap;

import dev.retryafter.agent.instrument.ClassFiles;

import java.io.IOException;

/**
 * One class of the agent's jar, defined alone in a class loader of its own: a JDK package exported
 * to its module is exported to it alone, never to the application's unnamed module, where the
 * agent's other classes live.
 */
public final class IsolatedClass {

    private IsolatedClass() {
    }

    /** A new instance of {@code className}, made with its public no-argument constructor. */
    public static Object newInstance(String className) throws ReflectiveOperationException {
        byte[] bytes;
        try {
            bytes = ClassFiles.read(IsolatedClass.class.getClassLoader(), className);
        } catch (IOException e) {
            throw new IllegalStateException("the agent jar has no " + className + " (" + e + ")");
        }
        ClassLoader isolated = new ClassLoader(null) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                if (!name.equals(className)) {
                    throw new ClassNotFoundException(name);
                }
                return defineClass(name, bytes, 0, bytes.length);
            }
        };
        return Class.forName(className, true, isolated).getConstructor().newInstance();
    }
}
