package dev.retryafter.agent;

import jdk.internal.vm.VMSupport;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;

/**
 * The JVM's agent properties, the live {@code Properties} the attach mechanism hands out to
 * {@code VirtualMachine.getAgentProperties()}. Loaded as an {@link dev.retryafter.agent.bootstrap.IsolatedClass}, like
 * {@link BootstrapDefiner}, so that {@code jdk.internal.vm} is exported to this class's module alone.
 * Built for Java 9 against {@code jdk.internal.vm} (see the pom).
 */
public final class AgentPropertiesReader implements Function<Instrumentation, Properties> {

    @Override
    public Properties apply(Instrumentation instrumentation) {
        instrumentation.redefineModule(Object.class.getModule(), Set.of(),
                Map.of("jdk.internal.vm", Set.of(AgentPropertiesReader.class.getModule())), Map.of(), Set.of(), Map.of());
        return read();
    }

    /** Apart from {@link #apply}: {@code VMSupport} is resolved at its first use, which must come after the export. */
    private static Properties read() {
        return VMSupport.getAgentProperties();
    }
}
