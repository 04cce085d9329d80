package dev.retryafter.agent.instrument;

import dev.retryafter.agent.AgentLog;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.scaffold.TypeInitializer;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.implementation.auxiliary.AuxiliaryType;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.OpenedClassReader;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * Which client classes the agent changes, with which advice, and the transformer that does it.
 *
 * <p>A plain {@link ClassFileTransformer}: for every class the JVM loads it does one lookup by name,
 * and only for the handful of client classes below does it call on Byte Buddy's {@link Advice},
 * straight through an ASM reader and writer. Byte Buddy's {@code AgentBuilder} does far more than
 * this needs (it generates a transformer class of its own at start-up, and its {@code DynamicType}
 * machinery loads hundreds of classes more), which measured about 0.4 s added to the first response.
 * Classes are never given new members, so retransforming them, when the agent is attached to a
 * running JVM, is allowed.
 */
public final class ClientInstrumentation implements ClassFileTransformer {

    private static final String ADVICE = "dev.retryafter.agent.instrument.";

    private final Map<String, Target> targets = new HashMap<>();
    private final ClassFileLocator agentClasses;

    private ClientInstrumentation(ClassLoader agentLoader) {
        this.agentClasses = ClassFileLocator.ForClassLoader.of(agentLoader);
        add(new Target("jdk.internal.net.http.HttpClientFacade")
                .advise(named("send").and(takesArguments(2)), "jdk.SendAdvice")
                .advise(named("sendAsync").and(takesArguments(2)), "jdk.SendAsyncAdvice")
                .advise(named("sendAsync").and(takesArguments(3)), "jdk.SendAsyncAdvice$WithPushPromises"));
        for (String client : new String[] {"InternalHttpClient", "MinimalHttpClient"}) {
            add(new Target("org.apache.hc.client5.http.impl.classic." + client)
                    .advise(named("doExecute").and(takesArguments(3)), "apache5.ExecuteAdvice"));
        }
        add(new Target("org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec")
                .advise(isConstructor().and(takesArguments(1)), "apache5.RetryStrategyAdvice"));
        for (String client : new String[] {"InternalHttpClient", "MinimalHttpClient", "AbstractHttpClient"}) {
            add(new Target("org.apache.http.impl.client." + client)
                    .advise(named("doExecute").and(takesArguments(3)), "apache4.ExecuteAdvice"));
        }
        // AutoRetryHttpClient (deprecated since 4.3) is not here: its retries run outside the client's doExecute.
        add(new Target("org.apache.http.impl.execchain.ServiceUnavailableRetryExec")
                .advise(isConstructor().and(takesArguments(2)), "apache4.RetryStrategyAdvice"));
    }

    /** Registers the transformer, and transforms the client classes already loaded, if any. */
    public static void install(Instrumentation instrumentation, ClassLoader agentLoader) throws UnmodifiableClassException {
        ClientInstrumentation transformer = new ClientInstrumentation(agentLoader);
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
            if (transformer.targets.containsKey(type.getName().replace('.', '/')) && instrumentation.isModifiableClass(type)) {
                loaded.add(type);
            }
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
            return null;
        }
        try {
            byte[] transformed = target.transform(loader, bytes, agentClasses);
            AgentLog.logger().debug("instrumented {}", target.className);
            return transformed;
        } catch (Throwable t) {
            AgentLog.failure("instrumenting " + target.className, t); // the class stays as it was
            return null;
        }
    }

    /** Transforms {@code bytes} as the JVM would ask; null when the class is not one of ours. For tests. */
    byte[] transform(ClassLoader loader, String className, byte[] bytes) {
        return transform(loader, className.replace('.', '/'), null, null, bytes);
    }

    /** For tests, without registering anything. */
    static ClientInstrumentation forTests(ClassLoader agentLoader) {
        return new ClientInstrumentation(agentLoader);
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

    /** One client class and the advice for its methods, each named by its class in this package. */
    private static final class Target {
        final String className;
        final List<ElementMatcher<? super MethodDescription>> methods = new ArrayList<>();
        final List<String> advice = new ArrayList<>();

        Target(String className) {
            this.className = className;
        }

        Target advise(ElementMatcher<? super MethodDescription> method, String adviceClass) {
            methods.add(method);
            advice.add(ADVICE + adviceClass);
            return this;
        }

        /**
         * Inlines the advice. Types resolve against the class's own loader (the client's types) and
         * the agent's (the advice): the advice is read as a class file, never loaded, so it may name
         * client types the agent's loader cannot see.
         */
        byte[] transform(ClassLoader loader, byte[] bytes, ClassFileLocator agentClasses) {
            ClassFileLocator locator = new ClassFileLocator.Compound(Arrays.asList(
                    ClassFileLocator.Simple.of(className, bytes), ClassFileLocator.ForClassLoader.of(loader), agentClasses));
            TypePool pool = TypePool.Default.of(locator);
            TypeDescription type = pool.describe(className).resolve();
            List<AsmVisitorWrapper> visitors = new ArrayList<>();
            for (int i = 0; i < methods.size(); i++) {
                visitors.add(Advice.to(pool.describe(advice.get(i)).resolve(), locator).on(methods.get(i)));
            }
            AsmVisitorWrapper wrapper = new AsmVisitorWrapper.Compound(visitors);
            int writerFlags = wrapper.mergeWriter(AsmVisitorWrapper.NO_FLAGS);
            int readerFlags = wrapper.mergeReader(AsmVisitorWrapper.NO_FLAGS);
            ClassFileVersion version = ClassFileVersion.ofClassFile(bytes);
            // No auxiliary types, no type initialiser, no new members: what retransformation allows.
            Implementation.Context context = Implementation.Context.Disabled.Factory.INSTANCE.make(type,
                    new AuxiliaryType.NamingStrategy.Suffixing("retryafter"), TypeInitializer.None.INSTANCE, version, version);
            ClassReader reader = OpenedClassReader.of(bytes);
            ClassWriter writer = new ClassWriter(reader, writerFlags); // copies what advice leaves alone
            reader.accept(wrapper.wrap(type, writer, context, pool, type.getDeclaredFields(), type.getDeclaredMethods(),
                    writerFlags, readerFlags), readerFlags);
            return writer.toByteArray();
        }
    }
}
