package jdk.internal.vm.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A stand-in for the compiler only, never in the jar (agent/pom.xml's jar configuration leaves out
 * {@code jdk/**}): the name of the JDK's own annotation (Java 9 and later), which HotSpot honours on
 * classes of the bootstrap class loader, as {@code AgentHooks} is (why it must: see its comment). The
 * agent is compiled for Java 8, whose API has no such type, and {@code java.base} does not export its
 * package; HotSpot matches it by name, so the class file's reference is all that counts.
 * AgentHooksTest checks every hook carries it.
 */
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
@Retention(RetentionPolicy.RUNTIME)
public @interface DontInline {
}
