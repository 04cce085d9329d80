package dev.retryafter.agent.instrument;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.GoverningSwitch;
import dev.retryafter.agent.bootstrap.AgentHooks;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.RetryEngine;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The agent's side of {@link AgentHooks}: casts back to the types the hooks could not name, and routes;
 * {@code java.net.http} through {@link JdkClientHooks}, which its module makes on Java 11 and later only.
 *
 * <p>The boundary for the blocking clients' {@code begin}, {@code respond}, {@code await} and {@code end} and the
 * modules' own hooks: any Throwable of the agent's that reaches here is logged once per hook, and the client goes on as
 * it would without the agent; only the agent's deliberate answers (an {@link IOException}: a held host, an interrupted
 * wait) pass {@code begin}, {@code respond} and {@code await}. The {@code java.net.http} hooks run the application's code or the
 * client itself beneath them, so their adapter keeps its own, narrower boundary.
 */
public final class HookDispatcher implements AgentHooks.Dispatcher, ModuleHooks.NewCalls {

    /** Null before Java 11: no java.net.http there, and nothing of it is loaded. */
    private JdkClientHooks jdk;
    private final BlockingRetryLoop loop;
    private final CallDepth depth;
    private final ConnectionLeases leases;
    /** The blocking clients, by their modules' names ({@link BlockingClient}). */
    private final Map<String, BlockingClient> blocking = new HashMap<>();
    /** The modules' own hooks, by name ({@link ModuleHooks}). */
    private final Map<String, ModuleHooks> moduleHooks = new HashMap<>();
    private final GoverningSwitch governing;
    private final Runnable firstUse;
    private final SelfGuardedStrategies selfGuarded;

    HookDispatcher(RetryEngine engine, CallDepth depth) {
        this(engine, depth, new GoverningSwitch(), new SelfGuardedStrategies(), () -> { });
    }

    /**
     * {@code governing} off: each new call gets the hooks' "not governed" answer. {@code firstUse} runs
     * at each governed call's start; it must be cheap after its first run, and never throw.
     */
    public HookDispatcher(RetryEngine engine, CallDepth depth, GoverningSwitch governing, SelfGuardedStrategies selfGuarded,
                   Runnable firstUse) {
        this.governing = governing;
        this.selfGuarded = selfGuarded;
        this.firstUse = firstUse;
        this.leases = new ConnectionLeases();
        this.loop = new BlockingRetryLoop(engine, depth, leases);
        this.depth = depth;
        ModuleContext context = new ModuleContext(engine, depth, selfGuarded, new GovernsNew());
        // What each module's advice reaches through the bridge: the modules say, this only files them by name.
        for (ClientModule module : ClientInstrumentation.MODULES) { // a plain loop: the start-up path links no lambda
            for (Object hooks : module.hooks(context)) {
                if (hooks instanceof JdkClientHooks) {
                    jdk = (JdkClientHooks) hooks;
                }
                if (hooks instanceof BlockingClient) {
                    blocking.put(((BlockingClient) hooks).name(), (BlockingClient) hooks);
                }
                if (hooks instanceof ModuleHooks) {
                    for (String hook : ((ModuleHooks) hooks).hooks()) {
                        moduleHooks.put(hook, (ModuleHooks) hooks);
                    }
                }
            }
        }
    }

    @Override
    public Object jdkSend(Object client, Object request, Object bodyHandler) throws IOException, InterruptedException {
        if (jdk == null || !governs()) {
            return null;
        }
        return jdk.send(client, request, bodyHandler);
    }

    @Override
    public Object jdkSendAsync(Object client, Object request, Object bodyHandler, Object pushPromiseHandler) {
        if (jdk == null || !governs()) {
            return null;
        }
        return jdk.sendAsync(client, request, bodyHandler, pushPromiseHandler);
    }

    @Override
    public Object begin(String client, Object exchange, String scheme, String host, int port, boolean replayable) throws IOException {
        // Off, an OkHttp call enqueued earlier that already has its turn still takes it: it holds a permit.
        boolean governNew = governs();
        try {
            BlockingClient own = blocking.get(client);
            return own != null ? own.begin(loop, exchange, scheme, host, port, replayable, governNew)
                    : governNew ? loop.begin(scheme, host, port, replayable) : null;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            AgentLog.failure("beginning a call", t);
            depth.restore(null); // not governed: the advice does nothing more for this call
            return null;
        }
    }

    @Override
    public boolean respond(String client, Object call, Object response, Object body, int status, Throwable thrown)
            throws IOException {
        try {
            BlockingClient own = blocking.get(client);
            if (own == null) { // no client of that name: the call ends as an attempt that failed, as the client alone would
                loop.failed((Call) call);
                return false;
            }
            return own.respond(loop, call, response, body, status, thrown);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            AgentLog.failure("answering a response", t);
            return false;
        }
    }

    @Override
    public void await(String client, Object call) throws IOException {
        BlockingClient own = blocking.get(client);
        try {
            if (own != null) {
                own.await(call);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            AgentLog.failure("waiting for a turn", t);
        }
    }

    @Override
    public void end(String client, Object exchange) {
        BlockingClient own = blocking.get(client);
        try {
            if (own != null) {
                own.end(exchange);
            }
        } catch (Throwable t) {
            AgentLog.failure("ending an exchange", t);
        }
    }

    @Override
    public void connectionAcquired(Object holder) {
        try {
            leases.acquired(holder);
        } catch (Throwable t) {
            AgentLog.failure("counting a leased connection", t);
        }
    }

    @Override
    public void connectionReleased(Object holder) {
        try {
            leases.released(holder);
        } catch (Throwable t) {
            AgentLog.failure("counting a released connection", t);
        }
    }

    /**
     * The one error boundary of the modules' own hooks: any Throwable of the agent's is logged once per hook, and the
     * client's own method runs as it always did.
     */
    @Override
    public Object module(String hook, Object[] args) {
        ModuleHooks hooks = moduleHooks.get(hook);
        if (hooks == null) {
            return null;
        }
        try {
            return hooks.call(hook, args, this);
        } catch (Throwable t) {
            AgentLog.failure("running the hook " + hook, t);
            return null;
        }
    }

    @Override
    public boolean governed() {
        return governs();
    }

    /** Whether a new call is governed; if so, the first such call starts what waits for the application's first use. */
    private boolean governs() {
        if (!governing.isOn()) {
            return false;
        }
        try {
            firstUse.run();
        } catch (Throwable t) {
            AgentLog.failure("starting the MBeans", t);
        }
        return true;
    }

    /** Whether a new request is governed, for adapters whose clients outlive a switch: a class, not a lambda (start-up path). */
    private final class GovernsNew implements BooleanSupplier {
        @Override
        public boolean getAsBoolean() {
            return governs();
        }
    }
}
