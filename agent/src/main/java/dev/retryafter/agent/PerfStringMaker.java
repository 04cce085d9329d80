package dev.retryafter.agent;

import jdk.internal.perf.Perf;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Makes a string constant among the JVM's performance counters (its hsperfdata file, which {@code jps}
 * and {@code jstat} read without attaching): {@code {instrumentation, name, value}}. Loaded as an
 * {@link dev.retryafter.agent.bootstrap.IsolatedClass}, like {@link AgentPropertiesReader}, so that {@code jdk.internal.perf} is
 * exported to this class's module alone. Built for Java 9 against {@code jdk.internal.perf} (see the pom).
 */
public final class PerfStringMaker implements Function<Object[], Object> {

    /** {@code PerfData::V_Constant} and {@code PerfData::U_String} in HotSpot's perfData.hpp. */
    private static final int CONSTANT = 1;
    private static final int STRING = 5;

    @Override
    public Object apply(Object[] arguments) {
        Instrumentation instrumentation = (Instrumentation) arguments[0];
        instrumentation.redefineModule(Object.class.getModule(), Set.of(),
                Map.of("jdk.internal.perf", Set.of(PerfStringMaker.class.getModule())), Map.of(), Set.of(), Map.of());
        return make((String) arguments[1], (String) arguments[2]);
    }

    /** Apart from {@link #apply}: {@code Perf} is resolved at its first use, which must come after the export. */
    private static Object make(String name, String value) {
        return Perf.getPerf().createString(name, CONSTANT, STRING, value);
    }
}
