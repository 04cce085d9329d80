package dev.retryafter.agent.instrument;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * A public method of a client's classes, called by reflection from the agent's own code, which cannot
 * name the client's types: named by its name and its parameters' simple names, so a relocated copy
 * ({@code shaded.org.apache.http.Header}) is found as the original is. Found once per class (a
 * {@link ClassValue}), as a public interface or public class declares it: response classes themselves
 * need not be public. Its access checks are switched off where the JVM allows.
 */
public final class ClientMethod extends ClassValue<Method> {

    private static final Object[] NO_ARGUMENTS = new Object[0];

    private final String name;
    private final String[] parameters;

    public ClientMethod(String name, String... parameterSimpleNames) {
        this.name = name;
        this.parameters = parameterSimpleNames;
    }

    /** {@code target.name()}. */
    public Object call(Object target) throws ReflectiveOperationException {
        return on(target).invoke(target, NO_ARGUMENTS);
    }

    /** {@code target.name(argument)}. */
    public Object call(Object target, Object argument) throws ReflectiveOperationException {
        return on(target).invoke(target, argument);
    }

    private Method on(Object target) throws NoSuchMethodException {
        Method method = get(target.getClass());
        if (method == null) {
            throw new NoSuchMethodException(name + " on " + target.getClass().getName());
        }
        return method;
    }

    @Override
    protected Method computeValue(Class<?> type) {
        Method found = find(type, name, parameters);
        return found == null ? null : accessibleCopy(found);
    }

    /** The method as a public class or interface of {@code type} declares it, or null. */
    public static Method find(Class<?> type, String name, String... parameterSimpleNames) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            Method m = Modifier.isPublic(c.getModifiers()) ? declared(c, name, parameterSimpleNames) : null;
            for (int i = 0; m == null && i < c.getInterfaces().length; i++) {
                m = declared(c.getInterfaces()[i], name, parameterSimpleNames);
            }
            if (m != null) {
                return m;
            }
        }
        return null;
    }

    private static Method declared(Class<?> type, String name, String[] parameterSimpleNames) {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && sameParameters(m.getParameterTypes(), parameterSimpleNames)) {
                return m;
            }
        }
        return null;
    }

    private static boolean sameParameters(Class<?>[] types, String[] simpleNames) {
        if (types.length != simpleNames.length) {
            return false;
        }
        for (int i = 0; i < types.length; i++) {
            if (!types[i].getSimpleName().equals(simpleNames[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * A copy with its access checks switched off, where the JVM allows; the original may be shared (a
     * proxy class keeps it), so it is left as it was. The original itself where the JVM refuses (a
     * module that does not open its package): its checks then stay.
     */
    public static Method accessibleCopy(Method method) {
        try {
            Method copy = method.getDeclaringClass().getMethod(method.getName(), method.getParameterTypes());
            copy.setAccessible(true);
            return copy;
        } catch (NoSuchMethodException | RuntimeException e) {
            return method;
        }
    }
}
