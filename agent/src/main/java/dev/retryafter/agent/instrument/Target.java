package dev.retryafter.agent.instrument;

import dev.retryafter.agent.log.AgentLog;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * One client class and the advice for its methods, each named by its class below {@code instrument}
 * ({@code "apache5.ExecuteAdvice"}); a {@link ClientModule} lists its client's. The
 * methods are written as {@code name/arity} ({@code <init>} for a constructor, no arity for any),
 * several separated by spaces; they become Byte Buddy matchers only when the class is changed, so
 * a run whose classes come from the cache loads none of Byte Buddy.
 */
public final class Target {
    final String className;
    final List<String> methods = new ArrayList<>();
    final List<String> advice = new ArrayList<>();
    /** A retry strategy whose advice answers for it: see {@link SelfGuardedStrategies}. */
    boolean guardsItself;
    private volatile Long adviceKey;
    /** For a client class a fat jar may relocate: its root package ({@code "org/apache/http/"}), else null. */
    String root;
    String client;
    /** A copy that has the shape by name alone is named only in a package ending with the root's last name ({@code …/jetty/}). */
    boolean keepsLastName;
    /** A copy is looked for only in a package ending with the root's last name, whatever the length of the name's end. */
    boolean onlyUnderLastName;
    /** The internal name after the root ({@code "impl/client/InternalHttpClient"}), and its part after the last slash. */
    String suffix;
    String simpleName;
    /** Methods, {@code name + descriptor} in the original's names, that a relocated copy must declare. */
    final List<String> shape = new ArrayList<>();
    /** Methods, {@code name + descriptor}, the class itself must declare to be changed: empty for any class of the name. */
    final List<String> requires = new ArrayList<>();
    /** The module that listed this target, by class name: its matchers are part of the advice key. */
    String module;

    public Target(String className) {
        this.className = className;
    }

    /** Matched in relocated copies too (fat jars): under the client's root package, with {@code methods} (the shape a copy
     * must have, in the original's names) to be taken for one. */
    public Target relocatable(Root root, String... methods) {
        String internalName = className.replace('.', '/');
        this.root = root.root;
        this.client = root.client;
        this.keepsLastName = root.keepsLastName;
        this.onlyUnderLastName = root.onlyUnderLastName;
        this.suffix = internalName.substring(root.root.length());
        this.simpleName = internalName.substring(internalName.lastIndexOf('/') + 1);
        shape.addAll(Arrays.asList(methods));
        return this;
    }

    /**
     * How {@code internalName} relocated this class, or null when it is no relocation of it: it must
     * end with the suffix after a slash, and not be the original. A suffix of one part
     * ({@code okhttp3/RealCall}) must be preceded by the root's own last part
     * ({@code shaded/okhttp3/RealCall}): a class named {@code RealCall} alone says too little; so must every suffix of a
     * root {@link Root#onlyUnderItsLastName}.
     */
    Relocation relocationOf(String internalName) {
        int cut = internalName.length() - suffix.length();
        if (cut <= 0 || !internalName.endsWith(suffix) || internalName.charAt(cut - 1) != '/') {
            return null;
        }
        String prefix = internalName.substring(0, cut);
        if (prefix.equals(root)) {
            return null;
        }
        if ((suffix.indexOf('/') < 0 || onlyUnderLastName) && !keepsRootsLastName(prefix)) {
            return null;
        }
        return new Relocation(root, prefix);
    }

    /** Whether {@code prefix} ends with the root's own last part: {@code shaded/okhttp3/} for {@code okhttp3/}. */
    boolean keepsRootsLastName(String prefix) {
        return prefix.endsWith("/" + root.substring(root.lastIndexOf('/', root.length() - 2) + 1));
    }

    /**
     * Whether a copy of this shape by name alone, not by descriptors, is named as a relocated client not governed: always,
     * but for a client whose class names other libraries share with a method of the same name, only in a package that
     * keeps the root's last name.
     */
    boolean namedWhenNotOfShape(Relocation relocation) {
        return !keepsLastName || keepsRootsLastName(relocation.prefix);
    }

    /**
     * Whether {@code methods} (a class's, {@link ClassShape}) has this target's shape relocated: with
     * {@code exactly}, every method with its descriptor relocated; else every method by name alone.
     */
    boolean shapeOf(Set<String> methods, Relocation relocation, boolean exactly) {
        for (String method : shape) {
            int paren = method.indexOf('(');
            if (exactly) {
                if (!methods.contains(method.substring(0, paren) + relocation.mapDescriptor(method.substring(paren)))) {
                    return false;
                }
            } else if (!declaresNamed(methods, method.substring(0, paren + 1))) {
                return false;
            }
        }
        return true;
    }

    private static boolean declaresNamed(Set<String> methods, String nameAndParen) {
        for (String declared : methods) {
            if (declared.startsWith(nameAndParen)) {
                return true;
            }
        }
        return false;
    }

    public Target advise(String method, String adviceClass) {
        methods.add(method);
        advice.add(ClientInstrumentation.ADVICE + adviceClass);
        return this;
    }

    /** Changed only when the class declares {@code methods}: a class of the same name in another version is left as it is. */
    public Target onlyIfDeclares(String... methods) {
        requires.addAll(Arrays.asList(methods));
        return this;
    }

    /** Whether {@code bytes} declare every method {@link #onlyIfDeclares} named; read only for such targets. */
    boolean declaredBy(String internalName, byte[] bytes) {
        if (requires.isEmpty()) {
            return true;
        }
        try {
            return ClassShape.methods(bytes).containsAll(requires);
        } catch (IOException | RuntimeException e) {
            AgentLog.logger().debug("could not read {}: {}", internalName, String.valueOf(e));
            return false;
        }
    }

    public Target guardsItself() {
        guardsItself = true;
        return this;
    }

    /**
     * A checksum of what decides how this class is changed: its advice's class files, the
     * transformer's and its module's (which hold the method matchers), the weaver's, the agent's version and
     * the JDK's. A cached class made by other advice, or on another JDK, is not used.
     */
    long adviceKey(ClassLoader agentLoader) throws IOException {
        Long key = adviceKey;
        if (key == null) {
            CRC32 crc = new CRC32();
            List<String> classes = new ArrayList<>(advice);
            classes.add(ClientInstrumentation.class.getName());
            classes.add(Target.class.getName());
            classes.add(module); // its matchers
            classes.add(ClientInstrumentation.ADVICE + "AdviceWeaver"); // by name: its class names Byte Buddy's
            for (String name : classes) {
                crc.update(ClassFiles.read(agentLoader, name));
            }
            Package own = Target.class.getPackage();
            // The JDK too: Byte Buddy describes its types when it changes a class, and one JDK's may differ from another's.
            String versions = (own == null ? null : own.getImplementationVersion()) + " " + System.getProperty("java.version");
            crc.update(versions.getBytes(StandardCharsets.UTF_8));
            key = crc.getValue();
            adviceKey = key;
        }
        return key;
    }

    /** A client's root package, and its name at exit. */
    public static final class Root {
        final String root;
        final String client;
        final boolean keepsLastName;
        final boolean onlyUnderLastName;

        public Root(String root, String client) {
            this(root, client, false);
        }

        /**
         * {@code keepsLastName}: a class of a target's name's end and methods' names, but not their descriptors, is named
         * as a copy not governed only in a package that ends with the root's last name ({@code shaded/org/eclipse/jetty/});
         * for a client whose class names other libraries share ({@code client/HttpRequest} and its {@code send} are
         * Vert.x's too). A copy of the exact shape is governed wherever it was moved.
         */
        public Root(String root, String client, boolean keepsLastName) {
            this(root, client, keepsLastName, false);
        }

        private Root(String root, String client, boolean keepsLastName, boolean onlyUnderLastName) {
            this.root = root;
            this.client = client;
            this.keepsLastName = keepsLastName;
            this.onlyUnderLastName = onlyUnderLastName;
        }

        /**
         * This root, its copies looked for only in a package that ends with its last name ({@code shaded/com/squareup/okhttp/}),
         * however long a class's name after it: for a client a later major copied class for class under another root
         * (OkHttp 3 is OkHttp 2 moved to {@code okhttp3/}), whose classes would otherwise be taken for a copy of it.
         */
        public Root onlyUnderItsLastName() {
            return new Root(root, client, keepsLastName, true);
        }
    }
}
