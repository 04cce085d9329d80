package dev.retryafter.agent.instrument;

/**
 * A blocking client with a status retry strategy of its own, which the agent makes stand aside for a refusal it
 * governs ({@link RetryStrategyGuard}): its advice hands the strategy, and the interface to guard it as, to the hook
 * {@code "<name>.guardStrategy"}.
 */
public abstract class StrategyGuardedClient extends BlockingClient implements ModuleHooks {

    protected final CallDepth depth;
    private final SelfGuardedStrategies selfGuarded;
    private final String guardHook;

    /** As {@link BlockingClient}'s, with what the guard reads: the calls under way, and the strategies that need none. */
    protected StrategyGuardedClient(String name, String headersMethod, String headerMethod, String[] toBody, String abortMethod,
                                    CallDepth depth, SelfGuardedStrategies selfGuarded) {
        super(name, headersMethod, headerMethod, toBody, abortMethod);
        this.depth = depth;
        this.selfGuarded = selfGuarded;
        this.guardHook = name + ".guardStrategy";
    }

    @Override
    public String[] hooks() {
        return new String[] {guardHook};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        return guard(a);
    }

    /** The guard hook's answer: {@code a[0]}, the strategy, guarded as {@code a[1]}, its interface. */
    protected final Object guard(Object[] a) {
        return RetryStrategyGuard.guard(a[0], (Class<?>) a[1], depth, selfGuarded);
    }
}
