package dev.retryafter.agent.instrument.okhttp;

import dev.retryafter.agent.report.Turns;
import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.instrument.BlockingRetryLoop;
import dev.retryafter.agent.instrument.BlockingClient;
import dev.retryafter.agent.instrument.CallDepth;
import dev.retryafter.agent.instrument.CancellableCalls;
import dev.retryafter.agent.instrument.ClientMethod;
import dev.retryafter.agent.instrument.Endpoint;
import dev.retryafter.agent.instrument.ModuleHooks;
import dev.retryafter.agent.instrument.RetryStrategyGuard;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/**
 * OkHttp calls, governed. {@code execute()} runs the agent's loop on the caller's thread, as Apache's
 * does. {@code enqueue()} takes its first turn without a thread: the call reaches OkHttp's dispatcher
 * once the turn has come, already holding it. A refusal of an enqueued call is waited out on the
 * dispatcher thread that ran it, as OkHttp's own follow-ups are: the call is in flight for OkHttp then,
 * and a resend on another call object would show the application's interceptors, listeners and
 * {@code cancel()} a call they never made.
 */
public final class OkHttpCalls extends BlockingClient implements ModuleHooks {

    /** {@code enqueue}: the call, callback, scheme, host, port, replayable, executed. TRUE: the agent enqueues it once its turn came. */
    public static final String ENQUEUE = "okhttp.enqueue";
    /** The end of an enqueued call's run: the call. */
    public static final String ASYNC_DONE = "okhttp.asyncDone";
    /** The dispatcher is done with an enqueued call (run, or rejected by its executor): its {@code AsyncCall}. */
    public static final String CALL_FINISHED = "okhttp.callFinished";
    /** OkHttp would follow a response up by itself: its status. TRUE: the follow-up is the agent's retry, and does not run. */
    public static final String FOLLOW_UP = "okhttp.followUp";
    /** A call was cancelled (by the application, or its call timeout): the call. */
    public static final String CANCEL = "okhttp.cancel";


    /**
     * By OkHttp call: the enqueued call's granted turn; the hold its turn met (thrown on the dispatcher
     * thread, where OkHttp reports failures, and counted once); or {@link #PASS} when the agent could not take a turn.
     */
    private final Map<Object, Object> granted = Collections.synchronizedMap(new WeakHashMap<Object, Object>());
    private static final Object PASS = new Object();
    /** The enqueued call was cancelled while it waited for its first turn: OkHttp fails it, ungoverned. */
    private static final Object CANCELLED = new Object();
    /** Each governed call's engine call, for a cancel to end its wait. */
    private final CancellableCalls cancels = new CancellableCalls("isCanceled");
    /** An {@code AsyncCall}'s call: the inner class's outer instance, in every version. */
    private static final OuterInstance OUTER_CALL = new OuterInstance("$AsyncCall");

    private final RetryEngine engine;
    private final CallDepth depth;

    public OkHttpCalls(RetryEngine engine, CallDepth depth) {
        super("okhttp", null, "header", new String[0], null); // its close discards the rest of the body itself
        this.engine = engine;
        this.depth = depth;
    }

    /**
     * At {@code RetryAndFollowUpInterceptor}: the enqueued call's granted turn, or the blocking loop's begin; with
     * {@code governNew} false, only a turn already granted is taken.
     */
    @Override
    public Call begin(BlockingRetryLoop loop, Object okCall, String scheme, String host, int port, boolean replayable,
                      boolean governNew) throws IOException {
        Object turn = okCall == null ? null : granted.remove(okCall);
        if (turn instanceof HostHeldException) {
            throw (HostHeldException) turn;
        }
        if (turn instanceof Call && !depth.isInside()) {
            depth.enter((Call) turn);
            cancels.put(okCall, (Call) turn); // granted at once at its enqueue: not yet known to them
            return (Call) turn;
        }
        if (turn instanceof Call) {
            ((Call) turn).endAttempt(); // nested inside another governed call: governed once, by the outer one
        }
        return governNew && turn != CANCELLED ? loop.begin(scheme, host, port, replayable, cancels, okCall) : null;
    }

    @Override
    public String[] hooks() {
        return new String[] {ENQUEUE, ASYNC_DONE, CALL_FINISHED, FOLLOW_UP, CANCEL};
    }

    @Override
    public Object call(String hook, Object[] a, NewCalls newCalls) {
        if (hook.equals(ASYNC_DONE)) {
            asyncDone(a[0]);
            return null;
        }
        if (hook.equals(CALL_FINISHED)) {
            Object enqueued = OUTER_CALL.of(a[0]);
            if (enqueued != null) {
                asyncDone(enqueued);
            }
            return null;
        }
        if (hook.equals(CANCEL)) {
            cancels.cancelled(a[0]);
            return null;
        }
        if (hook.equals(FOLLOW_UP)) {
            return RetryStrategyGuard.isGovernedRefusal(depth, (Integer) a[0], null) ? Boolean.TRUE : null;
        }
        // A call already executed or enqueued is OkHttp's to refuse ("Already Executed"): no turn is taken for it.
        boolean taken = newCalls.governed() && !(Boolean) a[6] && enqueue(a[0], a[1], (String) a[2], (String) a[3], (Integer) a[4], (Boolean) a[5]);
        return taken ? Boolean.TRUE : null;
    }

    /** True when the agent has taken the call over: it enqueues it itself once the first turn has come. */
    public boolean enqueue(Object okCall, Object callback, String scheme, String host, int port, boolean replayable) {
        if (callback == null || host == null || granted.containsKey(okCall)) {
            return false; // the agent's own enqueue, or one OkHttp is to refuse
        }
        Call call;
        CompletableFuture<Void> turn;
        try {
            call = engine.open(Endpoint.host(host), Endpoint.port(scheme, port), replayable);
            turn = Turns.start(call);
        } catch (RuntimeException e) {
            AgentLog.failure("opening an OkHttp enqueue", e);
            return false;
        }
        if (turn.isDone()) {
            granted.put(okCall, outcome(turn, call)); // no wait: OkHttp's own enqueue runs now
            return false;
        }
        granted.put(okCall, PASS); // until the turn comes, a second enqueue is OkHttp's to refuse
        Method enqueue;
        try {
            enqueue = enqueueMethod(okCall);
        } catch (ReflectiveOperationException | RuntimeException e) {
            AgentLog.failure("finding OkHttp's enqueue", e);
            call.withdraw();
            granted.remove(okCall);
            return false;
        }
        Boolean marked = ExecutedMark.set(okCall);
        if (Boolean.FALSE.equals(marked)) {
            call.withdraw(); // the application ran it meanwhile: OkHttp refuses this enqueue
            granted.remove(okCall);
            return false;
        }
        cancels.put(okCall, call);
        turn.whenComplete((went, failure) -> {
            // Failed (held, or the agent failing): OkHttp runs it, and its chain reports the hold, or runs unpaced;
            // cancelled while it waited: OkHttp fails it at once, ungoverned.
            Object outcome = outcome(turn, call);
            granted.put(okCall, outcome);
            if (marked != null) {
                ExecutedMark.clear(okCall);
            }
            try {
                enqueue.invoke(okCall, callback);
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.failure("enqueueing an OkHttp call", e);
                if (granted.remove(okCall, outcome)) {
                    call.endAttempt(); // unless a run of the call the application began meanwhile took the turn
                }
            }
        });
        return true;
    }

    private static Object outcome(CompletableFuture<Void> turn, Call call) {
        try {
            turn.join();
            return call;
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            return cause instanceof HostHeldException ? cause : cause instanceof CancellationException ? CANCELLED : PASS;
        } catch (CancellationException e) {
            return CANCELLED;
        } catch (RuntimeException e) {
            return PASS;
        }
    }

    /** The enqueued call has run: a granted turn its chain never took gives its permit back. */
    public void asyncDone(Object okCall) {
        Object turn = okCall == null ? null : granted.remove(okCall);
        if (turn instanceof Call) {
            ((Call) turn).endAttempt();
        }
    }

    @Override
    protected void offerHeaders(Object response, Call call) throws ReflectiveOperationException {
        offerIndexedHeaders(response, call);
    }

    /**
     * {@code okhttp3.Call.enqueue(okhttp3.Callback)}, through the public interface: the call's own class
     * is not public in 3.x. Found by shape, not by package: a fat jar may have relocated OkHttp
     * ({@code shaded.okhttp3.Call}), and its {@code Callback} is then next to its {@code Call}.
     */
    private static Method enqueueMethod(Object okCall) throws ReflectiveOperationException {
        for (Class<?> type = okCall.getClass(); type != null; type = type.getSuperclass()) {
            for (Class<?> contract : type.getInterfaces()) {
                String name = contract.getName();
                if (name.equals("okhttp3.Call") || name.endsWith(".Call")) {
                    for (Method method : contract.getMethods()) {
                        if (method.getName().equals("enqueue") && method.getParameterCount() == 1
                                && method.getParameterTypes()[0].getName().equals(name + "back")) {
                            return method;
                        }
                    }
                }
            }
        }
        throw new NoSuchMethodException("okhttp3.Call.enqueue on " + okCall.getClass());
    }

    /** The outer instance ({@code this$0}) of an inner class whose name ends with a suffix; null for any other object. */
    private static final class OuterInstance extends ClassValue<Field> {
        private final String suffix;

        OuterInstance(String suffix) {
            this.suffix = suffix;
        }

        Object of(Object inner) {
            Field outer = inner == null ? null : get(inner.getClass());
            try {
                return outer == null ? null : outer.get(inner);
            } catch (IllegalAccessException e) {
                return null; // made accessible when found
            }
        }

        @Override
        protected Field computeValue(Class<?> type) {
            if (!type.getName().endsWith(suffix)) {
                return null;
            }
            try {
                Field outer = type.getDeclaredField("this$0");
                outer.setAccessible(true);
                return outer;
            } catch (ReflectiveOperationException | RuntimeException e) {
                AgentLog.failure("reading an OkHttp AsyncCall's call", e);
                return null;
            }
        }
    }
}
