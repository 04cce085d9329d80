package jdk.internal.vm.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * For the compiler only, never in the jar: the name of the JDK's own annotation (Java 9 and later),
 * which HotSpot honours on classes of the bootstrap class loader, as {@code AgentHooks} is. The
 * agent is built for Java 8, whose API does not have it.
 */
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
@Retention(RetentionPolicy.RUNTIME)
public @interface DontInline {
}
