package dev.retryafter.agent.instrument;

/**
 * A client the agent governs, as its own package under {@code instrument} declares it: the client classes it changes,
 * with which advice, and the shape of their relocated copies. Each {@code instrument/<client>} has one
 * ({@code <Client>Module}), and {@link ClientInstrumentation#MODULES} lists them: a new client adds its module there.
 * A plain class, asked once at start-up, where no lambda of the agent's is linked (see AgentInstaller).
 */
public interface ClientModule {

    /** The client's classes and their advice. */
    Target[] targets();

    /**
     * What the module's advice reaches through the bridge, made once when the agent starts: its {@link ModuleHooks}
     * ({@code AgentHooks.module}) and its {@link BlockingClient} ({@code AgentHooks.begin/respond}), one object may be
     * both. None for a module whose advice needs no hooks of its own.
     */
    default Object[] hooks(ModuleContext context) {
        return new Object[0];
    }
}
