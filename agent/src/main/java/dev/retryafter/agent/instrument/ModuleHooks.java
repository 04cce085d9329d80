package dev.retryafter.agent.instrument;

/**
 * A client module's own hooks, which its advice reaches through the bootstrap bridge's one generic entry
 * ({@code AgentHooks.module(hook, args)}) instead of a method of the bridge per client: the hook is named
 * {@code "<module>.<step>"} ({@code "apache5async.execute"}), its arguments are as the advice hands them. The dispatcher
 * runs every hook inside the agent's one error boundary: a Throwable of the agent's answers null, the plain call.
 */
public interface ModuleHooks {

    /** The hooks this object answers, by name. */
    String[] hooks();

    /** {@code hook}'s answer, or null for the client's own method to run as it always did. */
    Object call(String hook, Object[] args, NewCalls newCalls) throws Exception;

    /** Whether a new call may be governed now: asked only for a new call, since the first such call starts what waits for it. */
    interface NewCalls {
        boolean governed();
    }
}
