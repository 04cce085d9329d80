package dev.retryafter.agent.instrument;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.commons.ClassRemapper;
import net.bytebuddy.jar.asm.commons.Remapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Relocated copies of the client classes, as a fat jar has them (maven-shade's {@code relocations}):
 * made here by relocating the real clients' class files with ASM, as the shade plugin does. Each is
 * recognised by its name's end and shape, woven with advice whose client types are relocated alike,
 * and still verifies; a copy of another shape is named at exit, and a class that only shares a name's end is left alone.
 */
class RelocatedClientsTest {

    private final ClassLoader here = getClass().getClassLoader();

    @ParameterizedTest(name = "{0} moved to {1}")
    @CsvSource({
            "org.apache.http.impl.client.InternalHttpClient, shaded/",
            "org.apache.http.impl.client.InternalHttpClient, org/apache/http/=com/acme/deps/",
            "org.apache.http.impl.client.MinimalHttpClient, shaded/",
            "org.apache.http.impl.client.AbstractHttpClient, shaded/",
            "org.apache.http.impl.execchain.ServiceUnavailableRetryExec, shaded/",
            "org.apache.http.impl.execchain.ConnectionHolder, shaded/",
            "org.apache.hc.client5.http.impl.classic.InternalHttpClient, shaded/",
            "org.apache.hc.client5.http.impl.classic.MinimalHttpClient, shaded/",
            "org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec, shaded/",
            "org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy, shaded/",
            "org.apache.hc.client5.http.impl.classic.InternalExecRuntime, shaded/",
            "okhttp3.internal.http.RetryAndFollowUpInterceptor, shaded/",
            "okhttp3.internal.connection.RealCall, com/acme/deps/",
            "okhttp3.internal.connection.RealCall$AsyncCall, shaded/",
            "org.eclipse.jetty.client.transport.HttpRequest, shaded/",
            "org.eclipse.jetty.client.HttpClient, org/eclipse/jetty/=com/acme/deps/",
    })
    void aRelocatedClientClassIsAdvisedWithRelocatedAdviceAndStillVerifies(String original, String prefix) throws Exception {
        Relocating loader = new Relocating(here, prefix);
        String className = loader.relocatedName(original);
        ClientInstrumentation instrumentation = ClientInstrumentation.forTests(here);

        byte[] relocated = loader.relocatedBytes(className);
        byte[] transformed = instrumentation.transform(loader, className, relocated);

        assertNotNull(transformed, "recognised and advised");
        assertTrue(latin1(transformed).contains("dev/retryafter/agent/bootstrap/AgentHooks"), "calls into the hooks");
        List<String> unrelocated = names(transformed).stream().filter(RelocatedClientsTest::isClientType).collect(Collectors.toList());
        assertEquals(List.of(), unrelocated, "the advice names the client's types as relocated, never the originals");
        assertEquals(List.of(), instrumentation.ungoverned().loaded(), "governed: not named at exit");
        Class<?> defined = new SingleClassLoader(loader, className, transformed).loadClass(className);
        Class.forName(className, true, defined.getClassLoader()); // links: the verifier runs over the advised methods
    }

    @Test
    void aCopyRelocatedButOfAnotherShapeIsNamedAtExitAndLeftAlone() throws Exception {
        // The class's own name relocated, its methods' types not: not the shape the agent's advice fits.
        String original = "org/apache/http/impl/client/InternalHttpClient";
        String moved = "shaded/" + original;
        byte[] bytes = remap(bytes(original.replace('/', '.'), here), name -> name.equals(original) ? moved : name);
        ClientInstrumentation instrumentation = ClientInstrumentation.forTests(here);

        assertNull(instrumentation.transform(here, moved.replace('/', '.'), bytes));
        List<String> named = instrumentation.ungoverned().loaded();
        assertEquals(1, named.size(), named::toString);
        assertTrue(named.get(0).startsWith("Apache HttpClient 4 relocated to shaded.org.apache.http "
                + "(shaded.org.apache.http.impl.client.InternalHttpClient"), named::toString);
        assertTrue(UngovernedClients.note(named, true).contains("Apache HttpClient 4 relocated to shaded.org.apache.http"));
    }

    @Test
    void aClassThatOnlySharesANamesEndIsLeftAloneAndNotNamed() throws Exception {
        ClientInstrumentation instrumentation = ClientInstrumentation.forTests(here);
        for (String name : new String[] {"com/example/impl/client/InternalHttpClient", "com/example/InternalHttpClient",
                "com/example/RealCall", "com/example/internal/http/RetryAndFollowUpInterceptor"}) {
            assertTrue(instrumentation.mayBeRelocated(name), name + ": its last part is a client's, so its shape is read");
            assertNull(instrumentation.transform(here, name.replace('/', '.'), emptyClass(name)), name);
        }
        assertEquals(List.of(), instrumentation.ungoverned().loaded(), "no client was loaded");
    }

    /**
     * Vert.x's {@code io.vertx.ext.web.client.HttpRequest} ends as Jetty 9.4-11's {@code org.eclipse.jetty.client.HttpRequest}
     * does and declares a {@code send}: found in a run of the Vert.x tests, named at load and exit as a relocated Jetty
     * the agent could not govern. A Jetty copy is looked for only in a package that ends {@code jetty/}.
     */
    @Test
    void anotherLibrarysClassOfAJettyNameAndMethodIsNotTakenForARelocatedJetty() throws Exception {
        ClientInstrumentation instrumentation = ClientInstrumentation.forTests(here);
        String name = "io/vertx/ext/web/client/HttpRequest";
        assertNull(instrumentation.transform(here, name.replace('/', '.'), classWith(name, "send", "(Ljava/lang/Object;)V")), name);
        assertEquals(List.of(), instrumentation.ungoverned().loaded(), "no client was loaded");
    }

    /**
     * OkHttp 3.0-3.3's {@code okhttp3.internal.huc.HttpURLConnectionImpl} is OkHttp 2.7's class moved to {@code okhttp3/},
     * of the same shape: not taken for a relocated OkHttp 2, whose copies are looked for under a package ending
     * {@code okhttp/} only, so neither woven with its advice nor named as a copy not governed.
     */
    @Test
    void okHttp3sOwnUrlConnectionIsNotTakenForARelocatedOkHttp2() throws Exception {
        ClientInstrumentation instrumentation = ClientInstrumentation.forTests(here);
        String name = "okhttp3/internal/huc/HttpURLConnectionImpl";
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V1_8, Opcodes.ACC_PUBLIC, name, null, "java/net/HttpURLConnection", null);
        writer.visitMethod(Opcodes.ACC_PRIVATE, "getResponse", "()Lokhttp3/internal/http/HttpEngine;", null, null).visitEnd();
        writer.visitMethod(Opcodes.ACC_PUBLIC, "disconnect", "()V", null, null).visitEnd();
        writer.visitEnd();

        assertNull(instrumentation.transform(here, name.replace('/', '.'), writer.toByteArray()), name);
        assertEquals(List.of(), instrumentation.ungoverned().loaded(), "no client was loaded");
        Target urlConnection = new dev.retryafter.agent.instrument.okhttp2.OkHttp2Module().targets()[1];
        assertNull(urlConnection.relocationOf(name));
        assertNotNull(urlConnection.relocationOf("shaded/com/squareup/okhttp/internal/huc/HttpURLConnectionImpl"));
    }

    @Test
    void mostClassesCostOneHashOfTheirLastPart() {
        ClientInstrumentation instrumentation = ClientInstrumentation.forTests(here);
        for (String name : new String[] {"java/lang/String", "org/apache/http/impl/client/HttpClientBuilder",
                "shaded/org/apache/http/impl/client/HttpClientBuilder", "okhttp3/OkHttpClient", "a", ""}) {
            assertFalse(instrumentation.mayBeRelocated(name), name);
        }
    }

    @Test
    void aRelocatedCopyIsCachedUnderItsOwnNameAndRelocation(@TempDir Path dir) throws Exception {
        String original = "org.apache.http.impl.client.InternalHttpClient";
        byte[] first = null;
        for (String prefix : new String[] {"shaded/", "org/apache/http/=other/"}) {
            Relocating loader = new Relocating(here, prefix);
            String className = loader.relocatedName(original);
            byte[] relocated = loader.relocatedBytes(className);
            byte[] woven = ClientInstrumentation.forTests(here, dir).transform(loader, className, relocated);
            assertNotNull(woven);
            assertArrayEquals(woven, ClientInstrumentation.forTests(here, dir).transform(loader, className, relocated),
                    "the second JVM takes it from the cache, as made");
            if (first == null) {
                first = woven;
            }
        }
        try (Stream<Path> entries = Files.list(dir)) {
            Set<String> names = entries.map(entry -> entry.getFileName().toString().replaceAll("-.*", ""))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(Set.of("shaded.org.apache.http.impl.client.InternalHttpClient", "other.impl.client.InternalHttpClient"), names);
        }
    }

    private static boolean isClientType(String internalName) {
        return internalName.startsWith("org/apache/http/") || internalName.startsWith("org/apache/hc/")
                || internalName.startsWith("okhttp3/") || internalName.startsWith("org/eclipse/jetty/");
    }

    /** Every class name a class file refers to. */
    private static Set<String> names(byte[] bytes) {
        Set<String> names = new TreeSet<>();
        remap(bytes, name -> {
            names.add(name);
            return name;
        });
        return names;
    }

    static byte[] remap(byte[] bytes, UnaryOperator<String> rename) {
        ClassWriter writer = new ClassWriter(0);
        new ClassReader(bytes).accept(new ClassRemapper(writer, new Remapper() {
            @Override
            public String map(String internalName) {
                return rename.apply(internalName);
            }
        }), 0);
        return writer.toByteArray();
    }

    private static byte[] emptyClass(String internalName) {
        return classWith(internalName, "fetch", "()V"); // none of the methods the agent changes
    }

    /** A class of {@code internalName} that declares one method, {@code method} of {@code descriptor}. */
    private static byte[] classWith(String internalName, String method, String descriptor) {
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V1_8, Opcodes.ACC_PUBLIC, internalName, null, "java/lang/Object", null);
        MethodVisitor run = writer.visitMethod(Opcodes.ACC_PUBLIC, method, descriptor, null, null);
        run.visitCode();
        run.visitInsn(Opcodes.RETURN);
        run.visitMaxs(0, 2);
        run.visitEnd();
        writer.visitEnd();
        return writer.toByteArray();
    }

    private static String latin1(byte[] bytes) {
        return new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    static byte[] bytes(String className, ClassLoader loader) throws IOException {
        try (InputStream in = loader.getResourceAsStream(className.replace('.', '/') + ".class")) {
            assertNotNull(in, className);
            return in.readAllBytes();
        }
    }

    /**
     * The clients relocated, as a fat jar has them: Apache 4's {@code org/apache/http/}, Apache 5's
     * {@code org/apache/hc/} and OkHttp's {@code okhttp3/} and {@code okio/} moved (see {@link #movedRoot}),
     * their class files and resources alike.
     */
    static final class Relocating extends ClassLoader {
        private static final String[] ROOTS = {"org/apache/http/", "org/apache/hc/", "okhttp3/", "okio/", "org/eclipse/jetty/"};
        private final String prefix;

        Relocating(ClassLoader parent, String prefix) {
            super(parent);
            this.prefix = prefix;
        }

        /**
         * Where {@code root} goes: under the prefix ({@code "shaded/"}); or, for a prefix written
         * {@code "org/apache/http/=com/acme/http/"}, that root there and the others under {@code "shaded/"}.
         */
        private String movedRoot(String root) {
            int equals = prefix.indexOf('=');
            if (equals < 0) {
                return prefix + root;
            }
            return prefix.startsWith(root + "=") ? prefix.substring(equals + 1) : "shaded/" + root;
        }

        String relocatedName(String original) {
            return relocate(original.replace('.', '/')).replace('/', '.');
        }

        private String relocate(String internalName) {
            for (String root : ROOTS) {
                if (internalName.startsWith(root)) {
                    return movedRoot(root) + internalName.substring(root.length());
                }
            }
            return internalName;
        }

        private String original(String internalName) {
            for (String root : ROOTS) {
                String moved = movedRoot(root);
                if (internalName.startsWith(moved) && !internalName.startsWith(root)) {
                    String name = root + internalName.substring(moved.length());
                    if (getParent().getResource(name + ".class") != null) {
                        return name;
                    }
                }
            }
            return null;
        }

        byte[] relocatedBytes(String className) throws IOException {
            String original = original(className.replace('.', '/'));
            assertNotNull(original, className);
            return remap(bytes(original.replace('/', '.'), getParent()), this::relocate);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                if (original(name.replace('.', '/')) != null) {
                    try {
                        byte[] bytes = relocatedBytes(name);
                        return defineClass(name, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
                return super.loadClass(name, resolve);
            }
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            if (name.endsWith(".class") && original(name.substring(0, name.length() - 6)) != null) {
                try {
                    return new ByteArrayInputStream(relocatedBytes(name.substring(0, name.length() - 6)));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return super.getResourceAsStream(name);
        }
    }

    /** Defines one class from the given bytes, and leaves every other to its parent. */
    private static final class SingleClassLoader extends ClassLoader {
        private final String name;
        private final byte[] bytes;

        SingleClassLoader(ClassLoader parent, String name, byte[] bytes) {
            super(parent);
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(className)) {
                if (className.equals(name)) {
                    Class<?> loaded = findLoadedClass(className);
                    return loaded != null ? loaded : defineClass(className, bytes, 0, bytes.length);
                }
                return super.loadClass(className, resolve);
            }
        }
    }
}
