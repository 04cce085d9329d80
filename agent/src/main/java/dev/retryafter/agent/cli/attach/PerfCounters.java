package dev.retryafter.agent.cli.attach;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;

/**
 * The performance counters of a local JVM, read from its hsperfdata file as {@code jps} and
 * {@code jstat} read them: the file is mapped and read, the JVM is not attached to nor told. Through
 * {@code sun.jvmstat.monitor} (module {@code jdk.internal.jvmstat}), which the jar's manifest opens to
 * the command line ({@code Add-Exports}), by reflection, since a {@code release} build cannot name it.
 */
final class PerfCounters {

    private final Object host;
    private final Method getMonitoredVm;
    private final Constructor<?> vmIdentifier;
    private final Method findByName;
    private final Method getValue;
    private final Method detach;

    private PerfCounters(Object host, Method getMonitoredVm, Constructor<?> vmIdentifier, Method findByName, Method getValue,
                         Method detach) {
        this.host = host;
        this.getMonitoredVm = getMonitoredVm;
        this.vmIdentifier = vmIdentifier;
        this.findByName = findByName;
        this.getValue = getValue;
        this.detach = detach;
    }

    /** Null when this java does not let them be read (run other than as {@code java -jar}, or a JDK without jvmstat). */
    static PerfCounters open() {
        try {
            Class<?> monitoredHost = Class.forName("sun.jvmstat.monitor.MonitoredHost");
            Class<?> identifier = Class.forName("sun.jvmstat.monitor.VmIdentifier");
            Class<?> monitoredVm = Class.forName("sun.jvmstat.monitor.MonitoredVm");
            Class<?> monitor = Class.forName("sun.jvmstat.monitor.Monitor");
            Object host = monitoredHost.getMethod("getMonitoredHost", String.class).invoke(null, "localhost");
            return new PerfCounters(host, monitoredHost.getMethod("getMonitoredVm", identifier), identifier.getConstructor(String.class),
                    monitoredVm.getMethod("findByName", String.class), monitor.getMethod("getValue"), monitoredVm.getMethod("detach"));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** The {@code names} that {@code pid} publishes, with their values; null when its counters cannot be read (it ended). */
    Map<String, String> read(String pid, String... names) {
        Object vm;
        try {
            vm = getMonitoredVm.invoke(host, vmIdentifier.newInstance(pid));
        } catch (InvocationTargetException | InstantiationException | IllegalAccessException | RuntimeException e) {
            return null;
        }
        try {
            Map<String, String> values = new HashMap<>();
            for (String name : names) {
                Object monitor = findByName.invoke(vm, name);
                if (monitor != null) {
                    values.put(name, String.valueOf(getValue.invoke(monitor)));
                }
            }
            return values;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        } finally {
            try {
                detach.invoke(vm);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // read already, or gone
            }
        }
    }
}
