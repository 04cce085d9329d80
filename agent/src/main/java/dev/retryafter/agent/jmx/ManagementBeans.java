package dev.retryafter.agent.jmx;

import dev.retryafter.agent.GoverningSwitch;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.log.AgentLogger;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.instrument.Instrumentation;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Registers the agent's MBeans, late: {@code premain} runs before the application's {@code main}, and
 * the platform MBean server, once made, has made JUL's {@code LogManager} too, before an application
 * such as jboss-modules could name its own ({@code java.util.logging.manager}). So nothing here runs
 * until {@link #firstUse()}, called at the application's first governed request, which starts a
 * daemon thread that begins {@link #START_DELAY_MILLIS} later: by then the application's own code is
 * running and has had its chance, and its first request is not slowed. If it names a log manager its
 * loader cannot load yet (a module system still starting), the thread waits until it can: made now,
 * the LogManager would fall back to JUL's own for good. That thread then keeps one Host MBean per
 * tracked host, adding the new and removing those the engine evicted, every {@link #SYNC_MILLIS},
 * and writes what they say where {@code status PID} reads it ({@link PublishedStatus}).
 * Any failure is logged once and ends only the MBeans.
 */
public final class ManagementBeans {

    public static final String DOMAIN = "dev.retryafter";
    static final long SYNC_MILLIS = 1_000;
    /**
     * How long after the first governed request the MBeans are made: the platform MBean server
     * loads some 250 classes, which would otherwise compete with that request on a small machine.
     */
    static final long START_DELAY_MILLIS = 2_000;
    /** How long to wait for a named log manager to become loadable before going without MBeans. */
    static final long LOG_MANAGER_PATIENCE_MILLIS = 300_000;
    /** A crawler gone wide tracks up to 10,000 hosts; a JMX console lists fewer. */
    static final int MAX_HOST_BEANS = 1_000;

    private final RetryEngine engine;
    private final GoverningSwitch governing;
    /** Read by the command line's mailbox too, which steers these beans. */
    final String version;
    final AgentLogger log;
    /** Where the status goes for {@code status PID}, and the mark {@code list} reads; null for no status there. */
    final Instrumentation instrumentation;
    private final PolicyControls policies;
    /** Made on the MBeans' thread: its MXBean interface and what it names cost start-up time otherwise. Guarded by this. */
    private AgentView agent;
    private String policySource;
    private long policyLoadedAtMillis;
    private final AtomicBoolean started = new AtomicBoolean();
    /** The host state each host's MBean was made for, by key. Only the sync thread touches this. */
    private final Map<String, HostState> hosts = new HashMap<>();
    private boolean saidTooMany;

    public ManagementBeans(RetryEngine engine, GoverningSwitch governing, String version, String policySource,
                           long policyLoadedAtMillis, AgentLogger log, Instrumentation instrumentation, PolicyControls policies) {
        this.engine = engine;
        this.governing = governing;
        this.version = version;
        this.policySource = policySource;
        this.policyLoadedAtMillis = policyLoadedAtMillis;
        this.log = log;
        this.instrumentation = instrumentation;
        this.policies = policies;
    }

    /** The application's first governed request: cheap after the first call, and never throws. */
    public void firstUse() {
        if (started.get() || !started.compareAndSet(false, true)) {
            return;
        }
        try {
            Thread thread = new Thread(new Runnable() { // not a lambda: a first request comes this way (see AgentInstaller)
                @Override
                public void run() {
                    ManagementBeans.this.run();
                }
            }, "retry-after-agent-jmx");
            thread.setDaemon(true);
            thread.start();
        } catch (Throwable t) {
            log.warn("no MBeans: could not start their thread (" + t + ")");
        }
    }

    /** Policies (re)loaded: the Agent MBean shows them. */
    public synchronized void policyLoaded(String source, long atMillis) {
        policySource = source;
        policyLoadedAtMillis = atMillis;
        if (agent != null) {
            agent.policyLoaded(source, atMillis);
        }
    }

    /** The Agent MBean's implementation, made at its first use: by the MBeans' thread, or a command (CommandMailbox). */
    synchronized AgentView agent() {
        if (agent == null) {
            agent = new AgentView(engine, governing, version, policySource, policyLoadedAtMillis, log, policies);
        }
        return agent;
    }

    private void run() {
        MBeanServer server;
        try {
            Thread.sleep(START_DELAY_MILLIS);
            if (!awaitLogManager()) {
                return;
            }
            server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName(DOMAIN + ":type=Agent");
            if (!server.isRegistered(name)) {
                server.registerMBean(DescribedMBean.agent(agent()), name);
            }
        } catch (Throwable t) {
            log.warn("no MBeans: " + t);
            return;
        }
        // Made from an application thread, this one lives as long as the JVM: it must not keep a
        // redeployed web application's class loader reachable.
        Thread.currentThread().setContextClassLoader(null);
        PublishedStatus status = openStatus();
        while (true) {
            try {
                sync(server);
            } catch (Throwable t) {
                log.warn("MBeans no longer kept up to date: " + t);
                return;
            }
            if (status != null) {
                status = publish(status, server);
            }
            try {
                Thread.sleep(SYNC_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Where {@code status PID} reads the status; null, said once, when this JVM has no way there. */
    private PublishedStatus openStatus() {
        if (instrumentation == null) {
            return null;
        }
        try {
            return PublishedStatus.open(instrumentation);
        } catch (Throwable t) {
            log.info("status PID cannot read this JVM's status (the MBeans can): {}", String.valueOf(t));
            return null;
        }
    }

    /** The status as the MBeans have it now; null from now on, said once, if it cannot be. */
    private PublishedStatus publish(PublishedStatus status, MBeanServer server) {
        try {
            status.publish(StatusReport.render(server));
            return status;
        } catch (Throwable t) {
            log.info("status PID no longer kept up to date (the MBeans are): {}", String.valueOf(t));
            return null;
        }
    }

    /**
     * True once the log manager the application names ({@code java.util.logging.manager}), if any, can
     * be loaded the way {@code LogManager} will load it; false if it never could, or the wait was interrupted.
     */
    private boolean awaitLogManager() throws InterruptedException {
        long deadline = System.currentTimeMillis() + LOG_MANAGER_PATIENCE_MILLIS;
        while (!logManagerLoadable(System.getProperty("java.util.logging.manager"))) {
            if (System.currentTimeMillis() > deadline) {
                log.info("no MBeans: java.util.logging.manager names {}, which could not be loaded in {} s",
                        System.getProperty("java.util.logging.manager"), LOG_MANAGER_PATIENCE_MILLIS / 1000);
                return false;
            }
            Thread.sleep(SYNC_MILLIS);
        }
        return true;
    }

    /** As {@code LogManager} looks for it: the system class loader, then this thread's context one (the application's). */
    static boolean logManagerLoadable(String name) {
        if (name == null || name.isEmpty()) {
            return true;
        }
        ClassLoader[] loaders = {ClassLoader.getSystemClassLoader(), Thread.currentThread().getContextClassLoader()};
        for (ClassLoader loader : loaders) {
            try {
                if (loader != null) {
                    Class.forName(name, false, loader); // loaded, not initialised
                    return true;
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // not from this one
            }
        }
        return false;
    }

    /** One MBean per host the engine tracks now: a host retired and made again gets a fresh one. */
    private void sync(MBeanServer server) throws Exception {
        Map<String, HostState> now = new HashMap<>();
        for (HostState host : engine.hosts()) {
            now.put(host.key(), host);
        }
        for (Iterator<Map.Entry<String, HostState>> it = hosts.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, HostState> entry = it.next();
            if (now.get(entry.getKey()) != entry.getValue()) {
                unregister(server, hostName(entry.getKey()));
                it.remove();
            }
        }
        for (HostState host : now.values()) {
            if (hosts.containsKey(host.key())) {
                continue;
            }
            if (hosts.size() >= MAX_HOST_BEANS) {
                if (!saidTooMany) {
                    log.info("more than {} hosts tracked: only {} have an MBean; the exit report has them all", MAX_HOST_BEANS, MAX_HOST_BEANS);
                    saidTooMany = true;
                }
                break;
            }
            ObjectName name = hostName(host.key());
            unregister(server, name); // a bean of an earlier agent in this JVM, or of a state just replaced
            server.registerMBean(DescribedMBean.host(new HostView(host, engine)), name);
            hosts.put(host.key(), host);
        }
    }

    /** {@code dev.retryafter:type=Host,name="host:port"}: quoted, as a colon is not allowed bare in a value. */
    public static ObjectName hostName(String key) throws Exception {
        return new ObjectName(DOMAIN + ":type=Host,name=" + ObjectName.quote(key));
    }

    private static void unregister(MBeanServer server, ObjectName name) throws Exception {
        if (server.isRegistered(name)) {
            try {
                server.unregisterMBean(name);
            } catch (javax.management.InstanceNotFoundException gone) {
                // unregistered meanwhile: what was wanted
            }
        }
    }
}
