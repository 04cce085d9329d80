package dev.retryafter.it.bench;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Category;
import dev.retryafter.agent.engine.CharacterisationChange;
import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.DecisionListener;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.testing.VirtualClock;
import dev.retryafter.agent.testing.VirtualScheduler;

import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * This project's engine, unchanged, with {@link Policy#DEFAULTS}, driven the way the asynchronous
 * adapters drive it. Every wait, after a refusal or for the pace, happens inside {@link Call#turn()},
 * so the worker never waits on its own.
 */
final class AgentStrategy implements Strategy {

    private static final String HOST = "portal.example";
    private static final int PORT = 443;

    /** Where {@link DecisionTrace} collects every decision and wait; null in the benchmarks. */
    static volatile StringBuilder trace;
    /** Whether {@link #trace} has what the engine learned too: {@link CellTimeline}'s, not the digest {@link DecisionTrace} takes. */
    static volatile boolean traceLearning;

    private final VirtualClock clock;
    private final RetryEngine engine;
    private long longestDecidedWaitMillis;
    private int refusalsAnsweredTruthful;

    AgentStrategy(VirtualClock clock, VirtualScheduler scheduler, long seed) {
        this.clock = clock;
        this.engine = RetryEngine.builder()
                .clock(clock).sleeper(clock).delays(millis -> noteSleep(millis, scheduler))
                .random(new Random(seed)::nextDouble)
                .policies(PolicyLookup.everyHost(Policy.DEFAULTS))
                .listener(new DecisionListener() {
                    @Override
                    public void onRefusal(HostState host, Decision decision) {
                    }

                    @Override
                    public void onLearned(HostState host, dev.retryafter.agent.engine.knowledge.Learned learned) {
                        if (traceLearning) {
                            traced("learned: " + learned);
                        }
                    }

                    @Override
                    public void onRecharacterised(HostState host, CharacterisationChange change) {
                    }

                    @Override
                    public void onHeldRequest(HostState host, HostHeldException failure) {
                    }
                })
                .build();
    }

    @Override
    public Fetch open() {
        Call call = engine.open(HOST, PORT, true);
        return new Fetch() {
            @Override
            public CompletableFuture<Void> turn() {
                return call.turn();
            }

            @Override
            public Next onResponse(int status, String retryAfter) {
                return onResponse(status, retryAfter, Map.of());
            }

            @Override
            public Next onResponse(int status, String retryAfter, Map<String, String> headers) {
                if (!headers.isEmpty() && call.wantsHeaders(status)) {
                    headers.forEach(call::offerHeader);
                }
                boolean retry = call.onResponse(status, retryAfter);
                call.endAttempt();
                traced(status + " -> " + call.lastDecision());
                noteDecidedWait(call.lastDecision());
                if (status >= 400 && call.lastDecision() != null && call.lastDecision().category() == Category.TRUTHFUL) {
                    refusalsAnsweredTruthful++;
                }
                return retry ? Next.resendAfter(0) : Next.DONE;
            }
        };
    }

    /** From the engine's own report line for the portal: one host, since every call goes to it. */
    @Override
    public Learned learned() {
        HostSnapshot host = engine.hosts().iterator().next().snapshot(clock.millis());
        return new Learned(host.category.label(), host.learnedCeiling().orElse(-1),
                host.pacePerMinute(), longestDecidedWaitMillis, refusalsAnsweredTruthful);
    }

    /** Every wait the engine takes in one go, after a refusal or for the pace, goes through here. */
    private CompletableFuture<Void> noteSleep(long millis, VirtualScheduler scheduler) {
        longestDecidedWaitMillis = Math.max(longestDecidedWaitMillis, millis);
        traced("wait " + millis);
        return scheduler.after(millis);
    }

    private void traced(String line) {
        StringBuilder sink = trace;
        if (sink != null) {
            sink.append(clock.millis()).append(' ').append(line).append('\n');
        }
    }

    /** A hold is not a wait anyone sleeps: its requests fail fast. */
    private void noteDecidedWait(Decision decision) {
        if (decision != null && decision.outcome() != Decision.Outcome.HOLD) {
            longestDecidedWaitMillis = Math.max(longestDecidedWaitMillis, decision.waitBeforeNextRequest().millis());
        }
    }
}
