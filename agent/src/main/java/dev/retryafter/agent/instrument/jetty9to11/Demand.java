package dev.retryafter.agent.instrument.jetty9to11;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.function.ObjLongConsumer;

/**
 * Demand from the application's content listeners, passed on as Jetty's receiver does: from one, as it comes; from
 * several, the least they have all asked for.
 */
final class Demand implements ObjLongConsumer<Object> {
    private final int listeners;
    private final Map<Object, Long> demands = new HashMap<>();
    private volatile LongConsumer upstream;

    Demand(int listeners) {
        this.listeners = listeners;
    }

    Demand from(LongConsumer next) {
        upstream = next;
        return this;
    }

    @Override
    public void accept(Object listener, long value) {
        long pass;
        if (listeners <= 1) {
            pass = value;
        } else {
            synchronized (this) {
                Long before = demands.get(listener);
                demands.put(listener, before == null ? value : before + value);
                if (demands.size() < listeners) {
                    return;
                }
                pass = Long.MAX_VALUE;
                for (Long each : demands.values()) {
                    pass = Math.min(pass, each);
                }
                for (Iterator<Map.Entry<Object, Long>> i = demands.entrySet().iterator(); i.hasNext(); ) {
                    Map.Entry<Object, Long> each = i.next();
                    if (each.getValue() - pass <= 0) {
                        i.remove();
                    } else {
                        each.setValue(each.getValue() - pass);
                    }
                }
            }
        }
        upstream.accept(pass);
    }
}
