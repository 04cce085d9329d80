package dev.retryafter.agent.instrument;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * What the agent's proxies of a client's interfaces, and its reflective calls into a client, share: the client's types
 * are the application's class loader's (or a fat jar's, relocated), so the agent reaches them by reflection.
 */
public final class Proxies {

    private Proxies() {
    }

    /** A proxy's own {@code Object} methods: equal to itself alone, named by the agent and the interface it stands for. */
    public static Object identity(Object proxy, Method method, Object[] args) {
        return identity(proxy, method, args, null);
    }

    /** As {@link #identity(Object, Method, Object[])}, its {@code toString} that of {@code named} where not null. */
    public static Object identity(Object proxy, Method method, Object[] args, Object named) {
        switch (method.getName()) {
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            default:
                return named != null ? named.toString() : "retry-after-agent " + proxy.getClass().getInterfaces()[0].getSimpleName();
        }
    }

    /** {@code method} on {@code target}, its own exception thrown as it is. */
    public static Object forward(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The method as a public class or interface declares it: the client's implementations need not be public. */
    public static Method publicMethod(Class<?> type, String name, Class<?>... parameters) throws NoSuchMethodException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.isInterface() || Modifier.isPublic(c.getModifiers())) {
                try {
                    return c.getMethod(name, parameters);
                } catch (NoSuchMethodException next) {
                    // on to its interfaces
                }
            }
            for (Class<?> i : c.getInterfaces()) {
                try {
                    return i.getMethod(name, parameters);
                } catch (NoSuchMethodException next) {
                    // on to the next
                }
            }
        }
        throw new NoSuchMethodException(name + " on " + type.getName());
    }

    /**
     * The instance method {@code name} that {@code type} or a superclass declares (any access), its parameters' types
     * named as {@code parameterTypes} end ({@code ".HttpHost"}, as a relocated copy names them too; null for any),
     * the nearest first; made accessible, as a client's classes may be package-private.
     */
    public static Method declared(Class<?> type, String name, String... parameterTypes) throws NoSuchMethodException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Method method : c.getDeclaredMethods()) {
                if (method.getName().equals(name) && !method.isBridge() && takes(method.getParameterTypes(), parameterTypes)
                        && (method.getModifiers() & (Modifier.STATIC | Modifier.ABSTRACT)) == 0) {
                    method.setAccessible(true);
                    return method;
                }
            }
        }
        throw new NoSuchMethodException(name + " on " + type.getName());
    }

    private static boolean takes(Class<?>[] parameters, String[] typeNameEnds) {
        if (parameters.length != typeNameEnds.length) {
            return false;
        }
        for (int i = 0; i < parameters.length; i++) {
            if (typeNameEnds[i] != null && !parameters[i].getName().endsWith(typeNameEnds[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * A public method ({@link #publicMethod}) found on the class of the first object it is called on: a client's class
     * that none of the methods the agent starts from names.
     */
    public static final class FoundAtFirstUse {
        private final String name;
        private final Class<?>[] parameters;
        private volatile Method method;

        public FoundAtFirstUse(String name, Class<?>... parameters) {
            this.name = name;
            this.parameters = parameters;
        }

        public Object invoke(Object target, Object... args) throws ReflectiveOperationException {
            Method found = method;
            if (found == null) {
                found = publicMethod(target.getClass(), name, parameters);
                method = found;
            }
            return found.invoke(target, args);
        }
    }
}
