package dev.retryafter.agent.instrument;

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
import net.bytebuddy.jar.asm.commons.ClassRemapper;
import net.bytebuddy.jar.asm.commons.Remapper;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.OpenedClassReader;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.none;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * Inlines the advice into a client class with Byte Buddy's {@link Advice}, straight through an ASM
 * reader and writer. The only class of the agent that uses Byte Buddy: a JVM whose changed classes
 * all come from the {@link ClassCache} never loads it, nor Byte Buddy.
 */
final class AdviceWeaver {

    private final ClassFileLocator agentClasses;

    AdviceWeaver(ClassLoader agentLoader) {
        this.agentClasses = ClassFileLocator.ForClassLoader.of(agentLoader);
    }

    /**
     * {@code bytes} of {@code className} with {@code advice.get(i)} (a class name) inlined into the
     * methods {@code methods.get(i)} names. Types resolve against the class's own loader (the
     * client's types) and the agent's (the advice): the advice is read as a class file, never
     * loaded, so it may name client types the agent's loader cannot see.
     */
    byte[] weave(String className, byte[] bytes, ClassLoader loader, List<String> methods, List<String> advice) {
        return weave(className, bytes, loader, methods, advice, null);
    }

    /**
     * As {@link #weave(String, byte[], ClassLoader, List, List)}, into a relocated copy of a client
     * class ({@code relocation} not null): {@code advice} then names each advice class by
     * {@link Relocation#adviceName}, and it is read with the client types it names relocated as the
     * client's were, as maven-shade would have relocated it had it been in the fat jar.
     */
    byte[] weave(String className, byte[] bytes, ClassLoader loader, List<String> methods, List<String> advice, Relocation relocation) {
        ClassFileLocator own = relocation == null ? agentClasses
                : new ClassFileLocator.Compound(new RelocatedAdvice(agentClasses, relocation), agentClasses);
        ClassFileLocator locator = new ClassFileLocator.Compound(Arrays.asList(
                ClassFileLocator.Simple.of(className, bytes), ClassFileLocator.ForClassLoader.of(loader), own));
        TypePool pool = TypePool.Default.of(locator);
        TypeDescription type = pool.describe(className).resolve();
        List<AsmVisitorWrapper> visitors = new ArrayList<>();
        for (int i = 0; i < methods.size(); i++) {
            visitors.add(Advice.to(pool.describe(advice.get(i)).resolve(), locator).on(matcher(methods.get(i))));
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

    /**
     * The advice classes as a relocation has them: the agent's own class file, its client types moved
     * under the relocation's prefix, and its own name made {@link Relocation#adviceName}. Only those
     * names are answered; every other is left to the locators after this one.
     */
    static final class RelocatedAdvice implements ClassFileLocator {

        private final ClassFileLocator agentClasses;
        private final Relocation relocation;
        private final String marker;

        RelocatedAdvice(ClassFileLocator agentClasses, Relocation relocation) {
            this.agentClasses = agentClasses;
            this.relocation = relocation;
            this.marker = relocation.adviceName("");
        }

        @Override
        public Resolution locate(String name) throws IOException {
            if (!name.endsWith(marker)) {
                return new Resolution.Illegal(name);
            }
            String original = name.substring(0, name.length() - marker.length());
            Resolution found = agentClasses.locate(original);
            if (!found.isResolved()) {
                return new Resolution.Illegal(name);
            }
            return new Resolution.Explicit(relocate(found.resolve(), original.replace('.', '/'), name.replace('.', '/')));
        }

        private byte[] relocate(byte[] adviceBytes, String originalName, String ownName) {
            Remapper remapper = new Remapper() {
                @Override
                public String map(String internalName) {
                    return internalName.equals(originalName) ? ownName : relocation.map(internalName);
                }
            };
            ClassReader reader = OpenedClassReader.of(adviceBytes);
            ClassWriter writer = new ClassWriter(0);
            reader.accept(new ClassRemapper(writer, remapper), 0);
            return writer.toByteArray();
        }

        @Override
        public void close() {
            // nothing held
        }
    }

    /**
     * The methods {@code "releaseConnection/1 abortConnection"} names: {@code name/arity}
     * ({@code <init>} for a constructor, no arity for any), several separated by spaces.
     */
    static ElementMatcher.Junction<MethodDescription> matcher(String methods) {
        ElementMatcher.Junction<MethodDescription> any = none();
        for (String method : methods.trim().split("\\s+")) {
            int slash = method.indexOf('/');
            String name = slash < 0 ? method : method.substring(0, slash);
            ElementMatcher.Junction<MethodDescription> one = name.equals("<init>") ? isConstructor() : named(name);
            if (slash >= 0) {
                one = one.and(takesArguments(Integer.parseInt(method.substring(slash + 1))));
            }
            any = any.or(one);
        }
        return any;
    }
}
