package dev.retryafter.agent.bootstrap;

import net.bytebuddy.jar.asm.AnnotationVisitor;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import dev.retryafter.agent.engine.Policy;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** With no dispatcher (the agent never started, or a failed start rolled back), every hook means "as the client alone would". */
class AgentHooksTest {

    @Test
    void withoutADispatcherEveryHookLeavesTheClientAlone() throws Exception {
        AgentHooks.install(null);
        Object callFromBefore = new Object(); // a call that began while the agent was still on
        assertNull(AgentHooks.begin("apache5", null, "https", "portal.example", 443, true));
        assertFalse(AgentHooks.respond("apache5", callFromBefore, new Object(), 429, null));
        assertFalse(AgentHooks.respond("apache5", callFromBefore, null, 0, new IOException("reset")));
        assertFalse(AgentHooks.respond("urlconnection", callFromBefore, new Object(), new Object(), 429));
        AgentHooks.await("urlconnection", callFromBefore);
        AgentHooks.end("urlconnection", callFromBefore);
        AgentHooks.connectionAcquired(new Object());
        AgentHooks.connectionReleased(new Object());
        assertNull(AgentHooks.module("apache5async.execute", new Object[7]));
    }

    /**
     * Every hook a client method calls carries both names of HotSpot's "do not inline" annotation, as
     * the class file has them (reflection would have to load the JDK's internal annotation type).
     */
    @Test
    void noHookIsInlinedIntoTheClientMethodThatCallsIt() throws Exception {
        Map<String, Set<String>> annotations = new HashMap<>();
        try (InputStream in = AgentHooks.class.getResourceAsStream("AgentHooks.class")) {
            new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                    Set<String> found = annotations.computeIfAbsent(name, n -> new HashSet<>());
                    return new MethodVisitor(Opcodes.ASM9) {
                        @Override
                        public AnnotationVisitor visitAnnotation(String type, boolean visible) {
                            if (visible) {
                                found.add(type);
                            }
                            return null;
                        }
                    };
                }
            }, ClassReader.SKIP_CODE);
        }
        Set<String> unmarked = new TreeSet<>();
        for (Method hook : AgentHooks.class.getDeclaredMethods()) {
            boolean calledByClients = Modifier.isPublic(hook.getModifiers()) && Modifier.isStatic(hook.getModifiers())
                    && !hook.getName().equals("install");
            Set<String> found = annotations.get(hook.getName());
            if (calledByClients && !(found.contains("Ljdk/internal/vm/annotation/DontInline;")
                    && found.contains("Ljava/lang/invoke/LambdaForm$DontInline;"))) {
                unmarked.add(hook.getName());
            }
        }
        assertEquals(new TreeSet<String>(), unmarked, "hooks HotSpot may inline into client methods");
    }

    /** Advice reads no Retry-After below {@link AgentHooks#LOWEST_REFUSAL}: that holds only while no policy may name such a status. */
    @Test
    void noPolicyNamesARefusalBelowTheLowestTheAdviceLooksAt() {
        assertThrows(Policy.InvalidSetting.class, () -> Policy.builder().retryStatuses(AgentHooks.LOWEST_REFUSAL - 1).build());
        Policy.builder().retryStatuses(AgentHooks.LOWEST_REFUSAL).build();
    }
}
