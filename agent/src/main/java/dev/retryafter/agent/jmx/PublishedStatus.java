package dev.retryafter.agent.jmx;

import dev.retryafter.agent.bootstrap.IsolatedClass;

import java.lang.instrument.Instrumentation;
import java.util.Properties;
import java.util.function.Function;

/**
 * The agent's status where {@code java -jar retry-after-agent.jar status PID} reads it: in the JVM's
 * agent properties, which the attach mechanism hands out as {@code jcmd} reads them. Nothing is
 * loaded into the JVM to read them and no port is opened, as the JDK's local JMX connector would
 * be, on every interface, for the rest of the JVM's life. They are the JDK's own: on Java 8 in
 * {@code sun.misc.VMSupport}, from 9 on in {@code jdk.internal.vm.VMSupport}, reached through
 * {@code AgentPropertiesReader}.
 */
final class PublishedStatus {

    /** What {@code status} reads: the agent's line after {@code "in PID: "}, then the per-host table. */
    static final String PROPERTY = "retry-after-agent.status";

    private final Properties agentProperties;

    private PublishedStatus(Properties agentProperties) {
        this.agentProperties = agentProperties;
    }

    @SuppressWarnings("unchecked")
    static PublishedStatus open(Instrumentation instrumentation) throws ReflectiveOperationException {
        Properties properties;
        if (System.getProperty("java.specification.version", "").startsWith("1.")) {
            properties = (Properties) Class.forName("sun.misc.VMSupport").getMethod("getAgentProperties").invoke(null);
        } else {
            Object reader = IsolatedClass.newInstance("dev.retryafter.agent.AgentPropertiesReader");
            properties = ((Function<Instrumentation, Properties>) reader).apply(instrumentation);
        }
        return new PublishedStatus(properties);
    }

    void publish(String status) {
        agentProperties.setProperty(PROPERTY, status);
    }
}
