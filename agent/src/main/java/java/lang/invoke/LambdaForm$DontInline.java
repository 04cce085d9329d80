package java.lang.invoke;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * For the compiler only, never in the jar: the name under which Java 8's HotSpot knows the
 * annotation that {@code jdk.internal.vm.annotation.DontInline} is from Java 9 on.
 */
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
@Retention(RetentionPolicy.RUNTIME)
public @interface LambdaForm$DontInline {
}
