package dev.retryafter.agent.instrument;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.reflect.Method;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transformer on the real client classes, without an agent attached: the advice is inlined and
 * the JVM accepts the result, Apache 4's Java 6 class files and Commons HttpClient 3's Java 1.2 ones included.
 */
class ClientInstrumentationTest {

    private final ClassLoader here = getClass().getClassLoader();
    private final ClientInstrumentation instrumentation = ClientInstrumentation.forTests(here);

    @Test
    void aClassThatIsNotOursIsLeftAlone() throws Exception {
        assertNull(instrumentation.transform(here, "java.lang.String", bytes(String.class.getName(), null)));
        assertNull(instrumentation.transform(here, "org.apache.http.impl.client.HttpClientBuilder",
                bytes("org.apache.http.impl.client.HttpClientBuilder", here)));
        assertNull(instrumentation.transform(here, "org.apache.http.impl.client.AutoRetryHttpClient",
                bytes("org.apache.http.impl.client.AutoRetryHttpClient", here)), "its retries run outside doExecute: not governed");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "org.apache.http.impl.client.InternalHttpClient",
            "org.apache.http.impl.client.MinimalHttpClient",
            "org.apache.http.impl.client.AbstractHttpClient",
            "org.apache.http.impl.execchain.ServiceUnavailableRetryExec",
            "org.apache.http.impl.execchain.ConnectionHolder",
            "org.apache.hc.client5.http.impl.classic.InternalHttpClient",
            "org.apache.hc.client5.http.impl.classic.MinimalHttpClient",
            "org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec",
            "org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy",
            "org.apache.hc.client5.http.impl.classic.InternalExecRuntime",
            "okhttp3.internal.http.RetryAndFollowUpInterceptor",
            "okhttp3.internal.connection.RealCall",
            "okhttp3.internal.connection.RealCall$AsyncCall",
            "org.apache.commons.httpclient.HttpClient",
            "org.apache.commons.httpclient.HttpMethodBase",
    })
    void aClientClassIsAdvisedAndStillVerifies(String className) throws Exception {
        byte[] original = bytes(className, here);
        byte[] transformed = instrumentation.transform(here, className, original);
        assertNotNull(transformed, "advised");
        assertTrue(new String(transformed, java.nio.charset.StandardCharsets.ISO_8859_1).contains("dev/retryafter/agent/bootstrap/AgentHooks"),
                "calls into the hooks");
        Class<?> defined = new SingleClassLoader(here, className, transformed).loadClass(className);
        Class<?> unchanged = new SingleClassLoader(here, className, original).loadClass(className);
        assertEquals(members(unchanged), members(defined), "no new member, none lost: retransformation allows nothing else");
        // Initialising links the class, which runs the verifier over every method, the advised ones included.
        Class.forName(className, true, defined.getClassLoader());
    }

    /** java.base's own: advised as the JVM would hand them over (they cannot be defined again here to verify). */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "sun.net.www.protocol.http.HttpURLConnection",
            "sun.net.www.http.HttpClient",
            "sun.net.www.protocol.https.HttpsClient",
    })
    void aJdkClientClassIsAdvised(String className) throws Exception {
        byte[] transformed = instrumentation.transform(null, className, bytes(className, null));
        assertNotNull(transformed, "advised");
        assertTrue(new String(transformed, java.nio.charset.StandardCharsets.ISO_8859_1).contains("dev/retryafter/agent/bootstrap/AgentHooks"),
                "calls into the hooks");
    }

    /**
     * HttpAsyncClient 4.1's package-private clients cannot be defined apart from their package-private superclass:
     * advised here, verified where they run (the attached suite and the child JVMs of Apache4AsyncTest).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "org.apache.http.impl.nio.client.InternalHttpAsyncClient",
            "org.apache.http.impl.nio.client.MinimalHttpAsyncClient",
    })
    void anAsyncClient4ClassIsAdvised(String className) throws Exception {
        byte[] transformed = instrumentation.transform(here, className, bytes(className, here));
        assertNotNull(transformed, "advised");
        assertTrue(new String(transformed, java.nio.charset.StandardCharsets.ISO_8859_1).contains("apache4async.execute"),
                "calls into the hooks");
    }

    @Test
    void everyTargetIsNamedAsTheClientsNameIt() {
        assertTrue(instrumentation.classNames().contains("jdk.internal.net.http.HttpClientFacade"));
        assertTrue(instrumentation.classNames().contains("sun.net.www.protocol.http.HttpURLConnection"));
        assertTrue(instrumentation.classNames().contains("okhttp3.RealCall"), "OkHttp 3.x");
        assertTrue(instrumentation.classNames().contains("org.eclipse.jetty.client.transport.HttpRequest"), "Jetty 12");
        assertTrue(instrumentation.classNames().contains("org.apache.hc.client5.http.impl.async.InternalAbstractHttpAsyncClient"),
                "HttpAsyncClient 5");
        assertTrue(instrumentation.classNames().contains("org.apache.http.impl.nio.client.InternalHttpAsyncClient"), "HttpAsyncClient 4.1");
        assertTrue(instrumentation.classNames().contains("org.eclipse.jetty.client.HttpConversation"), "Jetty 9.4-11");
        assertTrue(instrumentation.classNames().contains("org.asynchttpclient.DefaultAsyncHttpClient"), "AsyncHttpClient 2-3");
        assertTrue(instrumentation.classNames().contains("io.vertx.ext.web.client.impl.WebClientBase"), "Vert.x WebClient 4-5");
        assertTrue(instrumentation.classNames().contains("reactor.netty.http.client.HttpClientConnect"), "Reactor Netty 1.x");
        assertTrue(instrumentation.classNames().contains("okhttp3.Dispatcher"), "OkHttp's dispatcher, where every enqueued call ends");
        assertTrue(instrumentation.classNames().contains("okhttp3.internal.connection.Transmitter"), "OkHttp 3.14's call timeout");
        assertTrue(instrumentation.classNames().contains("org.apache.http.client.methods.AbstractExecutionAwareRequest"), "Apache 4's abort");
        assertTrue(instrumentation.classNames().contains("org.apache.hc.client5.http.classic.methods.HttpUriRequestBase"), "Apache 5's cancel");
        assertTrue(instrumentation.classNames().contains("com.squareup.okhttp.Call"), "OkHttp 2");
        assertTrue(instrumentation.classNames().contains("com.squareup.okhttp.internal.huc.HttpURLConnectionImpl"), "OkHttp 2's OkUrlFactory");
        assertEquals(39, instrumentation.classNames().size());
    }

    private static java.util.Set<String> members(Class<?> type) {
        java.util.Set<String> members = new java.util.TreeSet<>();
        for (Method method : type.getDeclaredMethods()) {
            members.add(method.getName() + java.util.Arrays.toString(method.getParameterTypes()));
        }
        for (java.lang.reflect.Field field : type.getDeclaredFields()) {
            members.add(field.getName());
        }
        return members;
    }

    private static byte[] bytes(String className, ClassLoader loader) throws Exception {
        String resource = className.replace('.', '/') + ".class";
        try (InputStream in = loader == null ? ClassLoader.getSystemResourceAsStream(resource) : loader.getResourceAsStream(resource)) {
            assertNotNull(in, resource);
            return in.readAllBytes();
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
