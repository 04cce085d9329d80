package dev.retryafter.agent.instrument.okhttp;

import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A call's {@code executed} flag, set while the agent holds its enqueue for a turn, as OkHttp sets it at an enqueue:
 * the application's second {@code enqueue()} or {@code execute()} of the call meanwhile is refused by OkHttp
 * ("Already Executed") as it would be without the agent, and {@code isExecuted()} reads true. Cleared just before the
 * agent hands the call on to OkHttp's own enqueue. An {@code AtomicBoolean} in 4.x and 5.x, a {@code boolean} guarded
 * by the call in 3.x; a call of another shape (or a class that cannot be opened) is left as it is.
 */
final class ExecutedMark {

    private static final ClassValue<Field> FIELD = new ClassValue<Field>() {
        @Override
        protected Field computeValue(Class<?> type) {
            try {
                Field executed = type.getDeclaredField("executed");
                Class<?> kind = executed.getType();
                if (kind != AtomicBoolean.class && kind != boolean.class) {
                    return null;
                }
                executed.setAccessible(true);
                return executed;
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null; // no such field, or a module that is not open: the call is held unmarked
            }
        }
    };

    private ExecutedMark() {
    }

    /** Marks the call executed: true; false when it already was; null when a call of its shape cannot be marked. */
    static Boolean set(Object call) {
        return FIELD.get(call.getClass()) == null ? null : flip(call, false, true);
    }

    /** Unmarks a call {@link #set} marked, so that OkHttp's own enqueue takes it. */
    static void clear(Object call) {
        flip(call, true, false);
    }

    private static boolean flip(Object call, boolean from, boolean to) {
        Field executed = FIELD.get(call.getClass());
        if (executed == null) {
            return false;
        }
        try {
            if (executed.getType() == AtomicBoolean.class) {
                return ((AtomicBoolean) executed.get(call)).compareAndSet(from, to);
            }
            synchronized (call) { // 3.x reads and sets it under the call's lock
                if (executed.getBoolean(call) != from) {
                    return false;
                }
                executed.setBoolean(call, to);
                return true;
            }
        } catch (IllegalAccessException | RuntimeException e) {
            return false;
        }
    }
}
