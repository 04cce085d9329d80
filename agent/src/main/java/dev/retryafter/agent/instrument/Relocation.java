package dev.retryafter.agent.instrument;

/**
 * A client's packages as a fat jar relocated them (maven-shade's {@code relocations}, Gradle's
 * shadow): everything under {@code root} (internal form, {@code "org/apache/http/"}) moved under
 * {@code prefix} ({@code "shaded/org/apache/http/"}, {@code "com/acme/deps/"}). Told from a loaded
 * class's name: what is left of it once the part that follows the root in the original name is cut off.
 */
final class Relocation {

    final String root;
    final String prefix;

    Relocation(String root, String prefix) {
        this.root = root;
        this.prefix = prefix;
    }

    /** {@code internalName} (or a descriptor's class name) as relocated; a name outside the root unchanged. */
    String map(String internalName) {
        return internalName.startsWith(root) ? prefix + internalName.substring(root.length()) : internalName;
    }

    /** Every {@code L<root>...;} in a method descriptor, relocated. */
    String mapDescriptor(String descriptor) {
        return descriptor.replace("L" + root, "L" + prefix);
    }

    /**
     * The name the advice class {@code adviceClass} (binary name) is woven under for this relocation: one
     * of its own, so that the advice read with relocated types is never taken for the original one.
     */
    String adviceName(String adviceClass) {
        return adviceClass + "$$relocated$" + prefix.replace('/', '_');
    }

    /** The relocated package, dotted and without its last dot: {@code shaded.org.apache.http}. */
    String packageName() {
        return prefix.substring(0, prefix.length() - 1).replace('/', '.');
    }
}
