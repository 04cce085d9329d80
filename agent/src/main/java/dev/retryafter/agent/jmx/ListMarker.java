package dev.retryafter.agent.jmx;

import dev.retryafter.agent.bootstrap.IsolatedClass;

import java.lang.instrument.Instrumentation;
import java.util.function.Function;

/**
 * What {@code java -jar retry-after-agent.jar list} reads to mark this JVM as one the agent runs in:
 * the performance counter {@value #COUNTER}, among those {@code jps} and {@code jstat} read from the
 * JVM's hsperfdata file without attaching. It lives exactly as long as the JVM: the file goes with it.
 * {@code sun.misc.Perf} on Java 8, {@code jdk.internal.perf.Perf} from 9 on, reached through
 * {@code PerfStringMaker}.
 */
final class ListMarker {

    /** What {@code list} looks for (Targets.MARKER_COUNTER in the command line). */
    static final String COUNTER = "retry-after-agent.version";

    private ListMarker() {
    }

    @SuppressWarnings("unchecked")
    static void publish(Instrumentation instrumentation, String version) throws ReflectiveOperationException {
        if (System.getProperty("java.specification.version", "").startsWith("1.")) {
            Class<?> perf = Class.forName("sun.misc.Perf");
            Object own = perf.getMethod("getPerf").invoke(null);
            perf.getMethod("createString", String.class, int.class, int.class, String.class).invoke(own, COUNTER, 1, 5, version);
        } else {
            Object maker = IsolatedClass.newInstance("dev.retryafter.agent.PerfStringMaker");
            ((Function<Object[], Object>) maker).apply(new Object[] {instrumentation, COUNTER, version});
        }
    }
}
