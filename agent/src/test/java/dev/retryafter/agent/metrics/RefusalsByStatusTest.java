package dev.retryafter.agent.metrics;

import dev.retryafter.agent.engine.DecisionListener;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** It stands between the engine and the decision log: a listener method it does not pass on would silence its log line. */
class RefusalsByStatusTest {

    @Test
    void everyListenerMethodIsPassedOn() throws Exception {
        for (Method method : DecisionListener.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            Method own = RefusalsByStatus.class.getMethod(method.getName(), method.getParameterTypes());
            assertEquals(RefusalsByStatus.class, own.getDeclaringClass(),
                    method.getName() + " is not passed on to the decision log: override it in RefusalsByStatus");
        }
    }
}
