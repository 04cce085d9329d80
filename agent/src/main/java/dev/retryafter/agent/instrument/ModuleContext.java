package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.RetryEngine;

import java.util.function.BooleanSupplier;

/** What a module's hooks are made with ({@link ClientModule#hooks}): the engine and the dispatcher's shared parts. */
public final class ModuleContext {

    public final RetryEngine engine;
    public final CallDepth depth;
    public final SelfGuardedStrategies selfGuarded;
    /** Whether a new request is governed now, for adapters whose clients outlive a switch. */
    public final BooleanSupplier governsNew;

    ModuleContext(RetryEngine engine, CallDepth depth, SelfGuardedStrategies selfGuarded, BooleanSupplier governsNew) {
        this.engine = engine;
        this.depth = depth;
        this.selfGuarded = selfGuarded;
        this.governsNew = governsNew;
    }
}
