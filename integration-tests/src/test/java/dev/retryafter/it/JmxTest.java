package dev.retryafter.it;

import com.sun.tools.attach.VirtualMachine;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import javax.management.Attribute;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's MBeans in a running JVM, read and steered from outside over a local JMX connection, with
 * nothing of the agent's on this side: plain attribute names and open types.
 */
@Execution(ExecutionMode.CONCURRENT)
class JmxTest {

    static final ObjectName AGENT = name("dev.retryafter:type=Agent");
    static final Duration PATIENCE = Duration.ofSeconds(60);

    @Test
    void theHostAndAgentMBeansShowWhatTheAgentDidAndSteerIt() throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 1_000))) {
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, LyingHeadersTest.POLICY);
            ChildJvm.Running app = new ChildJvm(Jdk.JAVA_17).classpathEntry(TestClasspath.testClasses())
                    .withAgent(policy.toString()).main("dev.retryafter.it.apps.CommandedFetcherApp", portal.baseUrl()).start();
            try {
                String pid = app.awaitLine("READY", PATIENCE).split(" ")[1];
                app.send("fetch 12");
                String first = app.awaitLine("FETCHED 1 ", PATIENCE);
                assertEquals("FETCHED 1 ok=12 refused=0", first, "governed: every refusal retried");
                long refusedSoFar = portal.stats().refusals;
                Inconclusive.unlessRefused(refusedSoFar, portal.stats()::toString);

                try (JMXConnector jmx = localJmx(pid)) {
                    MBeanServerConnection server = jmx.getMBeanServerConnection();
                    String key = "127.0.0.1:" + portal.port();
                    ObjectName host = new ObjectName("dev.retryafter:type=Host,name=" + ObjectName.quote(key));
                    awaitRegistered(server, host, true);

                    assertEquals(key, server.getAttribute(host, "Host"));
                    assertEquals(portal.stats().requests, server.getAttribute(host, "Requests"), "the agent counted what the portal saw");
                    assertEquals(refusedSoFar, server.getAttribute(host, "Refusals"));
                    assertEquals(refusedSoFar, server.getAttribute(host, "Retries"));
                    assertEquals(0L, server.getAttribute(host, "GivenUp"));
                    assertTrue((Long) server.getAttribute(host, "WaitedMillis") >= LyingHeadersTest.MIN_SLEEP);
                    // The same time by cause, each a name of the one vocabulary, as the engine named each wait; the queue
                    // for a permit is counted there too, so the causes add up to the time slept at least.
                    TabularData byCause = (TabularData) server.getAttribute(host, "WaitedMillisByCause");
                    long byCauseMillis = 0;
                    for (Object row : byCause.values()) {
                        CompositeData cause = (CompositeData) row;
                        Reason.valueOf((String) cause.get("key"));
                        byCauseMillis += (Long) cause.get("value");
                    }
                    assertTrue(byCauseMillis >= (Long) server.getAttribute(host, "WaitedMillis"), byCause::toString);
                    assertEquals(0, server.getAttribute(host, "InFlight"));
                    assertTrue((Integer) server.getAttribute(host, "MaxConcurrency") >= 1);
                    assertFalse((Boolean) server.getAttribute(host, "Held"));
                    assertEquals("", server.getAttribute(host, "HeldUntil"));
                    String reason = (String) server.getAttribute(host, "LastReason");
                    assertTrue(reason.equals("HEADER_AS_HINT") || reason.equals("HEADER_IGNORED_ALWAYS_ZERO"), reason);
                    assertEquals("RETRY", server.getAttribute(host, "LastOutcome"));
                    String decision = (String) server.getAttribute(host, "LastDecision");
                    assertTrue(decision.startsWith(key + " 429") && decision.contains("Retry-After=\"0\""), decision);
                    String category = (String) server.getAttribute(host, "Category");
                    assertTrue(Set.of("unknown", "always_zero").contains(category), category);
                    server.getAttribute(host, "MedianRatio");   // a double, NaN until a streak has ended
                    server.getAttribute(host, "PacePerMinute");
                    server.getAttribute(host, "LearnedCeiling");

                    assertEquals("0.1.0-SNAPSHOT", server.getAttribute(AGENT, "Version"));
                    assertEquals(true, server.getAttribute(AGENT, "Enabled"));
                    assertEquals(1, server.getAttribute(AGENT, "HostsTracked"));
                    assertTrue(((String) server.getAttribute(AGENT, "PolicyFile")).contains(policy.toString()));
                    assertFalse(((String) server.getAttribute(AGENT, "PolicyLoadedAt")).isEmpty());

                    assertEquals("enforce", server.getAttribute(AGENT, "Mode"));
                    assertDescribed(server.getMBeanInfo(AGENT));
                    assertDescribed(server.getMBeanInfo(host));
                    MBeanOperationInfo releaseInfo = operation(server.getMBeanInfo(AGENT), "releaseHold");
                    assertEquals("host", releaseInfo.getSignature()[0].getName(), "named, not p0");
                    assertTrue(releaseInfo.getDescription().startsWith("Lifts the hold on host:port"), releaseInfo.getDescription());
                    assertTrue(releaseInfo.getSignature()[0].getDescription().startsWith("host:port as the agent tracks it"));
                    assertEquals("file", operation(server.getMBeanInfo(AGENT), "reload").getSignature()[0].getName());
                    String policies = (String) server.invoke(AGENT, "describePolicies", new Object[] {key}, new String[] {"java.lang.String"});
                    assertTrue(policies.startsWith(key + " falls under no policy: the defaults govern it; policies from " + policy), policies);
                    assertTrue(policies.contains("min-sleep") && policies.contains(policy + ":1"), policies);

                    String released = (String) server.invoke(AGENT, "releaseHold", new Object[] {key}, new String[] {"java.lang.String"});
                    assertTrue(released.contains("not held"), released);
                    String forgotten = (String) server.invoke(AGENT, "forget", new Object[] {key}, new String[] {"java.lang.String"});
                    assertTrue(forgotten.startsWith(key + " forgotten"), forgotten);
                    awaitRegistered(server, host, false);
                    assertEquals(0, server.getAttribute(AGENT, "HostsTracked"));

                    // Off: the refusals reach the application, and the agent tracks nothing.
                    server.setAttribute(AGENT, new Attribute("Enabled", false));
                    long refusalsBefore = portal.stats().refusals;
                    app.send("fetch 12");
                    String off = app.awaitLine("FETCHED 2 ", PATIENCE);
                    long refusedOff = portal.stats().refusals - refusalsBefore;
                    Inconclusive.unlessRefused(refusedOff, portal.stats()::toString);
                    assertEquals("FETCHED 2 ok=" + (12 - refusedOff) + " refused=" + refusedOff, off, "no refusal retried");
                    assertEquals(0, server.getAttribute(AGENT, "HostsTracked"));

                    // On again, in observe mode, flipped to enforce over JMX: from then on the refusals are retried.
                    server.setAttribute(AGENT, new Attribute("Enabled", true));
                    server.setAttribute(AGENT, new Attribute("Mode", "observe"));
                    assertEquals("observe", server.getAttribute(AGENT, "Mode"));
                    long refusalsBeforeObserving = portal.stats().refusals;
                    app.send("fetch 12");
                    String observed = app.awaitLine("FETCHED 3 ", PATIENCE);
                    long refusedObserving = portal.stats().refusals - refusalsBeforeObserving;
                    Inconclusive.unlessRefused(refusedObserving, portal.stats()::toString);
                    assertEquals("FETCHED 3 ok=" + (12 - refusedObserving) + " refused=" + refusedObserving, observed,
                            "observed: every refusal reaches the application");
                    server.setAttribute(AGENT, new Attribute("Mode", "enforce"));
                    assertEquals("enforce", server.getAttribute(AGENT, "Mode"));
                    app.send("fetch 12");
                    assertEquals("FETCHED 4 ok=12 refused=0", app.awaitLine("FETCHED 4 ", PATIENCE), "enforced: every refusal retried");
                    awaitRegistered(server, host, true);
                }
                app.send("exit");
                ChildJvm.Result result = app.finish();
                assertEquals(0, result.exitCode, result::toString);
                assertTrue(result.stderr.contains("disabled over JMX"), result::toString);
                assertTrue(result.stderr.contains(portal.port() + ": forgotten over JMX"), result::toString);
                assertTrue(result.stderr.contains("mode enforce -> observe, over JMX"), result::toString);
                assertTrue(result.stderr.contains("would retry") && result.stderr.contains("(observe mode: not done)"), result::toString);
                assertTrue(result.stderr.contains("mode observe -> enforce, over JMX"), result::toString);
            } finally {
                app.process.destroyForcibly();
            }
        }
    }

    /**
     * premain makes neither the platform MBean server nor JUL's LogManager: an application that names its
     * own LogManager in main (as jboss-modules does) gets it, and the agent's MBeans still appear, after
     * its first request.
     */
    @Test
    void theMBeansWaitForTheApplicationsFirstRequest() throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 100, 1_000))) {
            ChildJvm.Result result = new ChildJvm(Jdk.JAVA_17).classpathEntry(TestClasspath.testClasses()).withAgent(null)
                    .jvmArg("--add-opens=java.management/java.lang.management=ALL-UNNAMED")
                    .main("dev.retryafter.it.apps.LateLogManagerApp", portal.baseUrl()).run();
            assertTrue(result.stdout.contains("MBEAN_SERVER_BEFORE_MAIN none"), result::toString);
            assertTrue(result.stdout.contains("LOG_MANAGER OwnLogManager"), result::toString);
            assertTrue(result.stdout.contains("STATUS 200"), result::toString);
            assertTrue(result.stdout.contains("AGENT_MBEAN registered"), result::toString);
            assertEquals(0, result.exitCode, result::toString);
        }
    }

    /** What a JMX console shows: the bean, every attribute and operation described, every parameter named and described. */
    static void assertDescribed(MBeanInfo info) {
        assertFalse(info.getDescription() == null || info.getDescription().isEmpty(), info.getClassName());
        Set<String> descriptions = new java.util.HashSet<>();
        for (MBeanAttributeInfo attribute : info.getAttributes()) {
            assertFalse(attribute.getDescription().isEmpty(), attribute.getName());
            assertTrue(descriptions.add(attribute.getDescription()), () -> attribute.getName() + " has a description of its own");
        }
        for (MBeanOperationInfo operation : info.getOperations()) {
            assertTrue(descriptions.add(operation.getDescription()), () -> operation.getName() + " has a description of its own");
            for (MBeanParameterInfo parameter : operation.getSignature()) {
                assertFalse(parameter.getName().matches("p[0-9]+"), () -> operation.getName() + "'s parameter is named");
                assertFalse(parameter.getDescription().isEmpty() || parameter.getDescription().equals(parameter.getName()),
                        () -> operation.getName() + "'s parameter is described");
            }
        }
    }

    static MBeanOperationInfo operation(MBeanInfo info, String name) {
        for (MBeanOperationInfo operation : info.getOperations()) {
            if (operation.getName().equals(name)) {
                return operation;
            }
        }
        throw new AssertionError("no operation " + name);
    }

    /** A JMX connection to a local JVM, through its local management agent, started over the attach API. */
    static JMXConnector localJmx(String pid) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(pid);
        String address;
        try {
            address = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        return JMXConnectorFactory.connect(new JMXServiceURL(address));
    }

    /** The MBeans follow the engine's hosts about once a second: waits (bounded) for {@code name} to come or go. */
    static void awaitRegistered(MBeanServerConnection server, ObjectName name, boolean registered) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (server.isRegistered(name) != registered) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + (registered ? " never registered" : " never unregistered"));
            }
            Thread.sleep(50);
        }
    }

    private static ObjectName name(String name) {
        try {
            return new ObjectName(name);
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
