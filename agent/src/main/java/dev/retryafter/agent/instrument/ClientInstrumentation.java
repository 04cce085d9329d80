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
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.zip.CRC32;


/**
 * Which client classes the agent changes, with which advice, and the transformer that does it.
 *
 * <p>A plain {@link ClassFileTransformer}: for every class the JVM loads it does one lookup by name,
 * and one test of the name's end for relocated copies in fat jars ({@link #mayBeRelocated}; a copy is
 * then confirmed by its methods, {@link ClassShape}, and woven with advice relocated alike, {@link Relocation}),
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
    private static final Root APACHE4 = new Root("org/apache/http/", "Apache HttpClient 4");
    private static final Root APACHE5 = new Root("org/apache/hc/", "Apache HttpClient 5");
    private static final Root OKHTTP = new Root("okhttp3/", "OkHttp");

    private final Map<String, Target> targets = new HashMap<>();
    /** The targets a relocated copy may be of, by the last part of their name ({@code "InternalHttpClient"}). */
    private final Map<String, List<Target>> relocatable = new HashMap<>();
    /** Those last parts by their own last character (ASCII): the one test every other class loaded meets. */
    private final String[][] simpleNamesByLastChar = new String[128][];
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
        // Apache's and OkHttp's classes are matched in relocated copies too (fat jars): their root package, the
        // client's name, and the shape a copy must have, in the original's names, to be taken for one.
        for (String client : new String[] {"InternalHttpClient", "MinimalHttpClient"}) {
            add(new Target("org.apache.hc.client5.http.impl.classic." + client).advise("doExecute/3", "apache5.ExecuteAdvice")
                    .relocatable(APACHE5, "doExecute(Lorg/apache/hc/core5/http/HttpHost;Lorg/apache/hc/core5/http/ClassicHttpRequest;"
                            + "Lorg/apache/hc/core5/http/protocol/HttpContext;)Lorg/apache/hc/client5/http/impl/classic/CloseableHttpResponse;"));
        }
        // The holders of an exchange's pooled connection: a governed attempt's permit lasts until it goes back.
        add(new Target("org.apache.hc.client5.http.impl.classic.InternalExecRuntime")
                .advise("acquireEndpoint", "apache5.ExecRuntimeAdvice$Acquired")
                .advise("releaseEndpoint discardEndpoint", "apache5.ExecRuntimeAdvice$Released")
                .relocatable(APACHE5, "releaseEndpoint()V", "discardEndpoint()V"));
        add(new Target("org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec").advise("<init>/1", "apache5.RetryStrategyAdvice")
                .relocatable(APACHE5, "<init>(Lorg/apache/hc/client5/http/HttpRequestRetryStrategy;)V"));
        // The default strategy answers for itself: asked about every response, it is not worth a reflective guard.
        add(new Target("org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy")
                .advise("retryRequest/3", "apache5.DefaultRetryStrategyAdvice").guardsItself()
                .relocatable(APACHE5, "retryRequest(Lorg/apache/hc/core5/http/HttpResponse;ILorg/apache/hc/core5/http/protocol/HttpContext;)Z"));
        // HttpAsyncClient 5: every execute overload meets in doExecute/6, HTTP/1.1 and H2 alike; its retry exec is guarded as classic's.
        for (String client : new String[] {"InternalAbstractHttpAsyncClient", "AbstractMinimalHttpAsyncClientBase"}) {
            add(new Target("org.apache.hc.client5.http.impl.async." + client).advise("doExecute/6", "apache5async.ExecuteAdvice"));
        }
        add(new Target("org.apache.hc.client5.http.impl.async.AsyncHttpRequestRetryExec").advise("<init>/1", "apache5.RetryStrategyAdvice"));
        // HttpAsyncClient 4.1: every execute overload meets in execute/4 (producer, consumer, context, callback). It retries no status itself.
        for (String client : new String[] {"InternalHttpAsyncClient", "MinimalHttpAsyncClient"}) {
            add(new Target("org.apache.http.impl.nio.client." + client).advise("execute/4", "apache4async.ExecuteAdvice"));
        }
        for (String client : new String[] {"InternalHttpClient", "MinimalHttpClient", "AbstractHttpClient"}) {
            add(new Target("org.apache.http.impl.client." + client).advise("doExecute/3", "apache4.ExecuteAdvice")
                    .relocatable(APACHE4, "doExecute(Lorg/apache/http/HttpHost;Lorg/apache/http/HttpRequest;Lorg/apache/http/protocol/HttpContext;)"
                            + "Lorg/apache/http/client/methods/CloseableHttpResponse;"));
        }
        add(new Target("org.apache.http.impl.execchain.ConnectionHolder")
                .advise("<init>", "apache4.ConnectionHolderAdvice$Acquired")
                .advise("releaseConnection/1 abortConnection", "apache4.ConnectionHolderAdvice$Released")
                .relocatable(APACHE4, "releaseConnection(Z)V", "abortConnection()V"));
        // AutoRetryHttpClient (deprecated since 4.3) is not here: its retries run outside the client's doExecute.
        add(new Target("org.apache.http.impl.execchain.ServiceUnavailableRetryExec").advise("<init>/2", "apache4.RetryStrategyAdvice")
                .relocatable(APACHE4, "<init>(Lorg/apache/http/impl/execchain/ClientExecChain;Lorg/apache/http/client/ServiceUnavailableRetryStrategy;)V"));
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
                .advise("followUpRequest", "okhttp.FollowUpAdvice")
                .relocatable(OKHTTP, "intercept(Lokhttp3/Interceptor$Chain;)Lokhttp3/Response;"));
        for (String call : new String[] {"okhttp3.RealCall", "okhttp3.internal.connection.RealCall"}) {
            add(new Target(call).advise("enqueue/1", "okhttp.EnqueueAdvice").relocatable(OKHTTP, "enqueue(Lokhttp3/Callback;)V"));
        }
        add(new Target("okhttp3.RealCall$AsyncCall").advise("execute/0", "okhttp.AsyncDoneAdvice").relocatable(OKHTTP, "execute()V"));
        add(new Target("okhttp3.internal.connection.RealCall$AsyncCall").advise("run/0", "okhttp.AsyncDoneAdvice")
                .relocatable(OKHTTP, "run()V"));
        // Jetty 12: send() blocks on send(listener); the agent's handler takes governed refusals at their status line.
        add(new Target("org.eclipse.jetty.client.transport.HttpRequest").advise("send/1", "jetty.SendAdvice"));
        // 9.4-11 have an HttpClient of the same name, whose findProtocolHandler takes their api types: not 12's, left alone.
        add(new Target("org.eclipse.jetty.client.HttpClient").advise("findProtocolHandler/2", "jetty.RefusalAdvice")
                .onlyIfDeclares("findProtocolHandler(Lorg/eclipse/jetty/client/Request;Lorg/eclipse/jetty/client/Response;)"
                        + "Lorg/eclipse/jetty/client/ProtocolHandler;"));
        // Jetty 9.4, 10 and 11 (API in org.eclipse.jetty.client.api): the same, in the classes 12 moved to transport; the
        // refusal at the conversation's choice of listeners, since their HttpClient shares 12's class name.
        add(new Target("org.eclipse.jetty.client.HttpRequest").advise("send/1", "jetty9to11.SendAdvice"));
        add(new Target("org.eclipse.jetty.client.HttpConversation").advise("updateResponseListeners/1", "jetty9to11.RefusalAdvice"));
        // AsyncHttpClient 2.x and 3.x (on Netty): every executeRequest and prepareXxx().execute() meets in the private execute/2,
        // after the client's cookies and request filters.
        add(new Target("org.asynchttpclient.DefaultAsyncHttpClient").advise("execute/2", "asynchttpclient.ExecuteAdvice"));
        // Vert.x WebClient 4 and 5: the agent's interceptor goes first in each client's chain as it is made.
        add(new Target("io.vertx.ext.web.client.impl.WebClientBase").advise("<init>/2", "vertx.CreatedAdvice"));
        // No lambdas on the start-up path (see AgentInstaller): plain loops.
        for (Target target : targets.values()) {
            if (target.root != null) {
                List<Target> sameName = relocatable.get(target.simpleName);
                if (sameName == null) {
                    sameName = new ArrayList<>();
                    relocatable.put(target.simpleName, sameName);
                }
                sameName.add(target);
            }
        }
        for (String simpleName : relocatable.keySet()) {
            char last = simpleName.charAt(simpleName.length() - 1);
            String[] sameLast = simpleNamesByLastChar[last];
            sameLast = sameLast == null ? new String[1] : Arrays.copyOf(sameLast, sameLast.length + 1);
            sameLast[sameLast.length - 1] = simpleName;
            simpleNamesByLastChar[last] = sameLast;
        }
        for (List<Target> sameName : relocatable.values()) { // the longest suffix first: okhttp3/internal/connection/RealCall before okhttp3/RealCall
            for (int i = 1; i < sameName.size(); i++) {
                for (int j = i; j > 0 && sameName.get(j).suffix.length() > sameName.get(j - 1).suffix.length(); j--) {
                    sameName.set(j, sameName.set(j - 1, sameName.get(j)));
                }
            }
        }
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
            if ((transformer.targets.containsKey(internalName) || transformer.mayBeRelocated(internalName))
                    && instrumentation.isModifiableClass(type)) {
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
        if (internalName == null) {
            return null;
        }
        Target target = targets.get(internalName);
        Twin twin = null;
        if (target == null) {
            if (beingRedefined == null) {
                ungoverned.onLoaded(internalName);
            }
            if (!mayBeRelocated(internalName)) {
                return null;
            }
            twin = twin(internalName, bytes);
            if (twin == null) {
                return null;
            }
            target = twin.target;
        }
        if (twin == null && !target.declaredBy(internalName, bytes)) {
            return null; // another version's class of the same name, which this advice does not fit
        }
        String className = twin == null ? target.className : twin.className;
        try {
            long adviceKey = cache == null ? 0 : twin == null ? target.adviceKey(agentLoader) : twin.adviceKey(agentLoader);
            byte[] cached = cache == null ? null : cache.find(internalName, bytes, adviceKey);
            if (cached != null) {
                AgentLog.logger().debug("instrumented {} (from the class cache)", className);
                return changed(target, loader, className, cached);
            }
            byte[] transformed = twin == null ? weaver().weave(className, bytes, loader, target.methods, target.advice)
                    : weaver().weave(className, bytes, loader, target.methods, twin.advice, twin.relocation);
            AgentLog.logger().debug("instrumented {}", className);
            if (cache != null) {
                store(internalName, bytes, adviceKey, transformed);
            }
            return changed(target, loader, className, transformed);
        } catch (Throwable t) {
            AgentLog.failure("instrumenting " + className, t); // the class stays as it was
            if (twin != null) {
                ungoverned.notGoverned(twin.describe("could not be changed"));
            }
            return null;
        }
    }

    private byte[] changed(Target target, ClassLoader loader, String className, byte[] bytes) {
        if (target.guardsItself) {
            selfGuarded.changed(loader, className);
        }
        return bytes;
    }

    /**
     * Whether the last part of {@code internalName} is one a relocated client class has: its last
     * character picks at most three such parts, compared with {@code endsWith}. No object is made;
     * some 10 ns a class.
     */
    boolean mayBeRelocated(String internalName) {
        int length = internalName.length();
        char last = length == 0 ? 0 : internalName.charAt(length - 1);
        String[] names = last < 128 ? simpleNamesByLastChar[last] : null;
        if (names == null) {
            return false;
        }
        for (String name : names) {
            int cut = length - name.length();
            if (cut >= 0 && internalName.endsWith(name) && (cut == 0 || internalName.charAt(cut - 1) == '/')) {
                return true;
            }
        }
        return false;
    }

    /**
     * The relocated copy of a target {@code internalName} is, or null: its name ends as the target's does
     * after the target's root package, and it declares the target's methods with the same descriptors,
     * relocated likewise. A copy that declares the methods by name, but not with those descriptors, is
     * a relocated client the agent cannot govern, and is named at exit; a class that shares no more than a name's end is left alone.
     */
    private Twin twin(String internalName, byte[] bytes) {
        List<Target> candidates = relocatable.get(internalName.substring(internalName.lastIndexOf('/') + 1));
        Twin found = null;
        Twin recognised = null;
        Set<String> methods = null;
        for (Target candidate : candidates == null ? new ArrayList<Target>() : candidates) {
            Relocation relocation = candidate.relocationOf(internalName);
            if (relocation == null) {
                continue;
            }
            if (methods == null) {
                try {
                    methods = ClassShape.methods(bytes);
                } catch (IOException | RuntimeException e) {
                    AgentLog.logger().debug("could not read {}: {}", internalName, String.valueOf(e));
                    break;
                }
            }
            Twin twin = new Twin(candidate, relocation, internalName);
            if (candidate.shapeOf(methods, relocation, true)) {
                found = twin;
                break;
            }
            if (recognised == null && candidate.shapeOf(methods, relocation, false)) {
                recognised = twin;
            }
        }
        if (found == null && recognised != null) {
            ungoverned.notGoverned(recognised.describe("not of the shape the agent changes"));
        }
        return found;
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

    /** For tests: the clients named at exit. */
    UngovernedClients ungoverned() {
        return ungoverned;
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
        /** For a client class a fat jar may relocate: its root package ({@code "org/apache/http/"}), else null. */
        String root;
        String client;
        /** The internal name after the root ({@code "impl/client/InternalHttpClient"}), and its part after the last slash. */
        String suffix;
        String simpleName;
        /** Methods, {@code name + descriptor} in the original's names, that a relocated copy must declare. */
        final List<String> shape = new ArrayList<>();
        /** Methods, {@code name + descriptor}, the class itself must declare to be changed: empty for any class of the name. */
        final List<String> requires = new ArrayList<>();

        Target(String className) {
            this.className = className;
        }

        Target relocatable(Root root, String... methods) {
            String internalName = className.replace('.', '/');
            this.root = root.root;
            this.client = root.client;
            this.suffix = internalName.substring(root.root.length());
            this.simpleName = internalName.substring(internalName.lastIndexOf('/') + 1);
            shape.addAll(Arrays.asList(methods));
            return this;
        }

        /**
         * How {@code internalName} relocated this class, or null when it is no relocation of it: it must
         * end with the suffix after a slash, and not be the original. A suffix of one part
         * ({@code okhttp3/RealCall}) must be preceded by the root's own last part
         * ({@code shaded/okhttp3/RealCall}): a class named {@code RealCall} alone says too little.
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
            if (suffix.indexOf('/') < 0) {
                String last = root.substring(root.lastIndexOf('/', root.length() - 2) + 1);
                if (!prefix.endsWith("/" + last)) {
                    return null;
                }
            }
            return new Relocation(root, prefix);
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

        Target advise(String method, String adviceClass) {
            methods.add(method);
            advice.add(ADVICE + adviceClass);
            return this;
        }

        /** Changed only when the class declares {@code methods}: a class of the same name in another version is left as it is. */
        Target onlyIfDeclares(String... methods) {
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

    /** A client's root package, and its name at exit. */
    private static final class Root {
        final String root;
        final String client;

        Root(String root, String client) {
            this.root = root;
            this.client = client;
        }
    }

    /** A relocated copy of a target: the target's methods, its advice read relocated as the copy is. */
    private static final class Twin {
        final Target target;
        final Relocation relocation;
        final String className;
        final List<String> advice = new ArrayList<>();
        private volatile Long adviceKey;

        Twin(Target target, Relocation relocation, String internalName) {
            this.target = target;
            this.relocation = relocation;
            this.className = internalName.replace('/', '.');
            for (String original : target.advice) {
                advice.add(relocation.adviceName(original));
            }
        }

        /** The target's key, and the relocation and what reads the advice relocated: a copy relocated elsewhere has its own. */
        long adviceKey(ClassLoader agentLoader) throws IOException {
            Long key = adviceKey;
            if (key == null) {
                CRC32 crc = new CRC32();
                crc.update(Long.toHexString(target.adviceKey(agentLoader)).getBytes(StandardCharsets.UTF_8));
                crc.update(relocation.root.getBytes(StandardCharsets.UTF_8));
                crc.update(relocation.prefix.getBytes(StandardCharsets.UTF_8));
                for (String name : new String[] {"Relocation", "ClassShape", "AdviceWeaver$RelocatedAdvice", "ClientInstrumentation$Twin"}) {
                    crc.update(ClassFiles.read(agentLoader, ADVICE + name));
                }
                key = crc.getValue();
                adviceKey = key;
            }
            return key;
        }

        String describe(String why) {
            return target.client + " relocated to " + relocation.packageName() + " (" + className + ", " + why + ")";
        }
    }
}
