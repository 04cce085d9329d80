package dev.retryafter.agent.instrument;

import dev.retryafter.agent.AgentLog;

import java.io.IOException;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.CRC32;


/**
 * Which client classes the agent changes, with which advice, and the transformer that does it.
 *
 * <p>A plain {@link ClassFileTransformer}: for every class the JVM loads it does one lookup by name,
 * and only for the handful of client classes below does it call on Byte Buddy's {@code Advice} ({@link AdviceWeaver}),
 * straight through an ASM reader and writer. Byte Buddy's {@code AgentBuilder} does far more than
 * this needs (it generates a transformer class of its own at start-up, and its {@code DynamicType}
 * machinery loads hundreds of classes more), which measured about 0.4 s added to the first response.
 * Even so, Byte Buddy's first change of a class loads some 570 classes of its own (half a second on
 * a slow machine), so a changed class is kept in a {@link ClassCache} and a JVM started again takes
 * it from there. Classes are never given new members, so retransforming them, when the agent is
 * attached to a running JVM, is allowed.
 */
public final class ClientInstrumentation implements ClassFileTransformer {

    private static final String ADVICE = "dev.retryafter.agent.instrument.";

    private final Map<String, Target> targets = new HashMap<>();
    private final ClassLoader agentLoader;
    private final UngovernedClients ungoverned;
    private final ClassCache cache;
    private final SelfGuardedStrategies selfGuarded;
    /** Byte Buddy, made at the first class changed: a run whose classes all come from the cache never loads it. */
    private volatile AdviceWeaver weaver;

    private ClientInstrumentation(ClassLoader agentLoader, UngovernedClients ungoverned, ClassCache cache,
                                  SelfGuardedStrategies selfGuarded) {
        this.agentLoader = agentLoader;
        this.ungoverned = ungoverned;
        this.cache = cache;
        this.selfGuarded = selfGuarded;
        add(new Target("jdk.internal.net.http.HttpClientFacade")
                .advise("send/2", "jdk.SendAdvice")
                .advise("sendAsync/2", "jdk.SendAsyncAdvice")
                .advise("sendAsync/3", "jdk.SendAsyncAdvice$WithPushPromises"));
        for (String client : new String[] {"InternalHttpClient", "MinimalHttpClient"}) {
            add(new Target("org.apache.hc.client5.http.impl.classic." + client).advise("doExecute/3", "apache5.ExecuteAdvice"));
        }
        // The holders of an exchange's pooled connection: a governed attempt's permit lasts until it goes back.
        add(new Target("org.apache.hc.client5.http.impl.classic.InternalExecRuntime")
                .advise("acquireEndpoint", "apache5.ExecRuntimeAdvice$Acquired")
                .advise("releaseEndpoint discardEndpoint", "apache5.ExecRuntimeAdvice$Released"));
        add(new Target("org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec").advise("<init>/1", "apache5.RetryStrategyAdvice"));
        // The default strategy answers for itself: asked about every response, it is not worth a reflective guard.
        add(new Target("org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy")
                .advise("retryRequest/3", "apache5.DefaultRetryStrategyAdvice").guardsItself());
        for (String client : new String[] {"InternalHttpClient", "MinimalHttpClient", "AbstractHttpClient"}) {
            add(new Target("org.apache.http.impl.client." + client).advise("doExecute/3", "apache4.ExecuteAdvice"));
        }
        add(new Target("org.apache.http.impl.execchain.ConnectionHolder")
                .advise("<init>", "apache4.ConnectionHolderAdvice$Acquired")
                .advise("releaseConnection/1 abortConnection", "apache4.ConnectionHolderAdvice$Released"));
        // AutoRetryHttpClient (deprecated since 4.3) is not here: its retries run outside the client's doExecute.
        add(new Target("org.apache.http.impl.execchain.ServiceUnavailableRetryExec").advise("<init>/2", "apache4.RetryStrategyAdvice"));
        // Commons HttpClient 3: every executeMethod overload calls the three-argument one.
        add(new Target("org.apache.commons.httpclient.HttpClient").advise("executeMethod/3", "commonshttp3.ExecuteAdvice"));
        add(new Target("org.apache.commons.httpclient.HttpMethodBase")
                .advise("execute/2", "commonshttp3.MethodLeaseAdvice$Acquired")
                .advise("ensureConnectionRelease/0", "commonshttp3.MethodLeaseAdvice$Released"));
        // HttpURLConnection, HttpsURLConnection's delegate included: the same methods from Java 8 to 25.
        add(new Target("sun.net.www.protocol.http.HttpURLConnection")
                .advise("plainConnect/0", "urlconnection.ConnectAdvice")
                .advise("followRedirect/0", "urlconnection.ResponseAdvice")
                .advise("disconnect/0", "urlconnection.DisconnectAdvice"));
        add(new Target("sun.net.www.http.HttpClient").advise("finished/0 closeServer/0", "urlconnection.ClientDoneAdvice"));
        add(new Target("sun.net.www.protocol.https.HttpsClient").advise("closeServer/0", "urlconnection.ClientDoneAdvice"));
        // OkHttp 3.x names its call okhttp3.RealCall; 4.x and 5.x, okhttp3.internal.connection.RealCall.
        add(new Target("okhttp3.internal.http.RetryAndFollowUpInterceptor")
                .advise("intercept/1", "okhttp.InterceptAdvice")
                .advise("followUpRequest", "okhttp.FollowUpAdvice"));
        for (String call : new String[] {"okhttp3.RealCall", "okhttp3.internal.connection.RealCall"}) {
            add(new Target(call).advise("enqueue/1", "okhttp.EnqueueAdvice"));
        }
        add(new Target("okhttp3.RealCall$AsyncCall").advise("execute/0", "okhttp.AsyncDoneAdvice"));
        add(new Target("okhttp3.internal.connection.RealCall$AsyncCall").advise("run/0", "okhttp.AsyncDoneAdvice"));
    }

    /**
     * Registers the transformer, and transforms the client classes already loaded, if any, noting
     * in {@code ungoverned} the clients it does not change, and keeping the changed classes in {@code cacheDirectory} for the next run
     * (null: no cache). A cache that cannot be used is said in {@code cacheUnusable}, and classes are changed afresh.
     */
    public static void install(Instrumentation instrumentation, ClassLoader agentLoader, UngovernedClients ungoverned,
                               SelfGuardedStrategies selfGuarded, Path cacheDirectory, Consumer<String> cacheUnusable)
            throws UnmodifiableClassException {
        install(instrumentation, new ClientInstrumentation(agentLoader, ungoverned,
                cacheDirectory == null ? null : ClassCache.open(cacheDirectory, cacheUnusable), selfGuarded));
    }

    /** {@code $XDG_CACHE_HOME/retry-after-agent/classes}, else {@code ~/.cache/retry-after-agent/classes}. */
    public static Path defaultCacheDirectory(String xdgCacheHome, String userHome) {
        return ClassCache.defaultDirectory(xdgCacheHome, userHome);
    }

    private static void install(Instrumentation instrumentation, ClientInstrumentation transformer) throws UnmodifiableClassException {
        instrumentation.addTransformer(transformer, true);
        try {
            retransformLoaded(instrumentation, transformer);
        } catch (UnmodifiableClassException | RuntimeException | Error e) { // a VerifyError included: nothing stays registered
            instrumentation.removeTransformer(transformer);
            throw e;
        }
    }

    private static void retransformLoaded(Instrumentation instrumentation, ClientInstrumentation transformer)
            throws UnmodifiableClassException {
        List<Class<?>> loaded = new ArrayList<>();
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            String internalName = type.getName().replace('.', '/');
            if (transformer.targets.containsKey(internalName) && instrumentation.isModifiableClass(type)) {
                loaded.add(type);
            }
            transformer.ungoverned.onLoaded(internalName); // attached late: what loaded before counts too
        }
        if (!loaded.isEmpty()) {
            instrumentation.retransformClasses(loaded.toArray(new Class<?>[0]));
        }
    }

    /** The Java 8 form: on 9 and later the module form's default calls it, and the module is not needed. */
    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> beingRedefined, ProtectionDomain protectionDomain,
                            byte[] bytes) {
        Target target = internalName == null ? null : targets.get(internalName);
        if (target == null) {
            if (internalName != null && beingRedefined == null) {
                ungoverned.onLoaded(internalName);
            }
            return null;
        }
        try {
            long adviceKey = cache == null ? 0 : target.adviceKey(agentLoader);
            byte[] cached = cache == null ? null : cache.find(internalName, bytes, adviceKey);
            if (cached != null) {
                AgentLog.logger().debug("instrumented {} (from the class cache)", target.className);
                return changed(target, loader, cached);
            }
            byte[] transformed = weaver().weave(target.className, bytes, loader, target.methods, target.advice);
            AgentLog.logger().debug("instrumented {}", target.className);
            if (cache != null) {
                store(internalName, bytes, adviceKey, transformed);
            }
            return changed(target, loader, transformed);
        } catch (Throwable t) {
            AgentLog.failure("instrumenting " + target.className, t); // the class stays as it was
            return null;
        }
    }

    private byte[] changed(Target target, ClassLoader loader, byte[] bytes) {
        if (target.guardsItself) {
            selfGuarded.changed(loader, target.className);
        }
        return bytes;
    }

    private void store(String internalName, byte[] bytes, long adviceKey, byte[] transformed) {
        try {
            cache.store(internalName, bytes, adviceKey, transformed);
        } catch (Throwable t) { // the class is changed all the same; the next run changes it again
            AgentLog.logger().debug("could not keep {} in the class cache: {}", internalName, String.valueOf(t));
        }
    }

    private AdviceWeaver weaver() {
        AdviceWeaver w = weaver;
        if (w == null) {
            w = new AdviceWeaver(agentLoader);
            weaver = w;
        }
        return w;
    }

    /** Transforms {@code bytes} as the JVM would ask; null when the class is not one of ours. For tests. */
    byte[] transform(ClassLoader loader, String className, byte[] bytes) {
        return transform(loader, className.replace('.', '/'), null, null, bytes);
    }

    /** For tests, without registering anything. */
    static ClientInstrumentation forTests(ClassLoader agentLoader) {
        return new ClientInstrumentation(agentLoader, new UngovernedClients(), null, new SelfGuardedStrategies());
    }

    /** For tests: changes classes as installed with a cache in {@code directory}. */
    static ClientInstrumentation forTests(ClassLoader agentLoader, Path directory) {
        return new ClientInstrumentation(agentLoader, new UngovernedClients(), ClassCache.open(directory, why -> {
            throw new IllegalStateException(why);
        }), new SelfGuardedStrategies());
    }

    /** The class names matched, for tests. */
    List<String> classNames() {
        List<String> names = new ArrayList<>();
        for (Target target : targets.values()) {
            names.add(target.className);
        }
        return names;
    }

    private void add(Target target) {
        targets.put(target.className.replace('.', '/'), target);
    }

    /**
     * One client class and the advice for its methods, each named by its class in this package. The
     * methods are written as {@code name/arity} ({@code <init>} for a constructor, no arity for any),
     * several separated by spaces; they become Byte Buddy matchers only when the class is changed, so
     * a run whose classes come from the cache loads none of Byte Buddy.
     */
    private static final class Target {
        final String className;
        final List<String> methods = new ArrayList<>();
        final List<String> advice = new ArrayList<>();
        /** A retry strategy whose advice answers for it: see {@link SelfGuardedStrategies}. */
        boolean guardsItself;
        private volatile Long adviceKey;

        Target(String className) {
            this.className = className;
        }

        Target advise(String method, String adviceClass) {
            methods.add(method);
            advice.add(ADVICE + adviceClass);
            return this;
        }

        Target guardsItself() {
            guardsItself = true;
            return this;
        }

        /**
         * A checksum of what decides how this class is changed: its advice's class files, the
         * transformer's (which holds the method matchers), the weaver's, the agent's version and
         * the JDK's. A cached class made by other advice, or on another JDK, is not used.
         */
        long adviceKey(ClassLoader agentLoader) throws IOException {
            Long key = adviceKey;
            if (key == null) {
                CRC32 crc = new CRC32();
                List<String> classes = new ArrayList<>(advice);
                classes.add(ClientInstrumentation.class.getName());
                classes.add(Target.class.getName());
                classes.add(ADVICE + "AdviceWeaver"); // by name: its class names Byte Buddy's
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
    }
}
