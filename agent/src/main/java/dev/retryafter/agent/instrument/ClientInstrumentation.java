package dev.retryafter.agent.instrument;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.instrument.apache4.Apache4Module;
import dev.retryafter.agent.instrument.apache4async.Apache4AsyncModule;
import dev.retryafter.agent.instrument.apache5.Apache5Module;
import dev.retryafter.agent.instrument.apache5async.Apache5AsyncModule;
import dev.retryafter.agent.instrument.commonshttp3.CommonsHttp3Module;
import dev.retryafter.agent.instrument.jdk.JdkModule;
import dev.retryafter.agent.instrument.jetty.JettyModule;
import dev.retryafter.agent.instrument.jetty9to11.Jetty9to11Module;
import dev.retryafter.agent.instrument.asynchttpclient.AsyncHttpClientModule;
import dev.retryafter.agent.instrument.vertx.VertxModule;
import dev.retryafter.agent.instrument.reactornetty.ReactorNettyModule;
import dev.retryafter.agent.instrument.okhttp.OkHttpModule;
import dev.retryafter.agent.instrument.okhttp2.OkHttp2Module;
import dev.retryafter.agent.instrument.urlconnection.UrlConnectionModule;

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
 * and only for the handful of client classes its modules list ({@link ClientModule}) does it call on Byte Buddy's {@code Advice} ({@link AdviceWeaver}),
 * straight through an ASM reader and writer. Byte Buddy's {@code AgentBuilder} does far more than
 * this needs (it generates a transformer class of its own at start-up, and its {@code DynamicType}
 * machinery loads hundreds of classes more), which measured about 0.4 s added to the first response.
 * Even so, Byte Buddy's first change of a class loads some 570 classes of its own (half a second on
 * a slow machine), so a changed class is kept in a {@link ClassCache} and a JVM started again takes
 * it from there. Classes are never given new members, so retransforming them, when the agent is
 * attached to a running JVM, is allowed.
 */
public final class ClientInstrumentation implements ClassFileTransformer {

    static final String ADVICE = "dev.retryafter.agent.instrument.";

    /**
     * Every client the agent governs: one module per package below this one, each listing its own classes and advice.
     * A new client adds its module here.
     */
    static final ClientModule[] MODULES = {
        new JdkModule(),
        new Apache5Module(),
        new Apache5AsyncModule(),
        new Apache4AsyncModule(),
        new Apache4Module(),
        new CommonsHttp3Module(),
        new UrlConnectionModule(),
        new OkHttpModule(),
        new OkHttp2Module(),
        new JettyModule(),
        new Jetty9to11Module(),
        new AsyncHttpClientModule(),
        new VertxModule(),
        new ReactorNettyModule(),
    };

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
        for (ClientModule module : MODULES) { // no lambdas on the start-up path (see AgentInstaller): plain loops
            for (Target target : module.targets()) {
                target.module = module.getClass().getName();
                add(target);
            }
        }
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
            if (recognised == null && candidate.namedWhenNotOfShape(relocation) && candidate.shapeOf(methods, relocation, false)) {
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
