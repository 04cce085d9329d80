package java.lang.invoke;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A stand-in for the compiler only, never in the jar (agent/pom.xml's jar configuration leaves out
 * {@code java/**}): the name under which Java 8's HotSpot knows the annotation that
 * {@code jdk.internal.vm.annotation.DontInline} is from Java 9 on. The JDK's own is package-private, so
 * {@code AgentHooks} could not name it without this. HotSpot matches the annotation by name on bootstrap
 * classes, so the class file's reference is all that counts; AgentHooksTest checks every hook carries it.
 * Needed as long as the agent runs on Java 8.
 */
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
@Retention(RetentionPolicy.RUNTIME)
public @interface LambdaForm$DontInline {
}
