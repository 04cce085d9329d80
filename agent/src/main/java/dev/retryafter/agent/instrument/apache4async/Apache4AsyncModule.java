package dev.retryafter.agent.instrument.apache4async;

import dev.retryafter.agent.instrument.ClientModule;
import dev.retryafter.agent.instrument.ModuleContext;
import dev.retryafter.agent.instrument.Target;

/**
 * HttpAsyncClient 4.1: every execute overload meets in {@code execute/4} (producer, consumer, context, callback). It retries no
 * status itself. Matched in relocated copies too (fat jars), by the shape a copy must have, in the original's names.
 */
public final class Apache4AsyncModule implements ClientModule {

    public static final Target.Root ROOT = new Target.Root("org/apache/http/", "Apache HttpAsyncClient 4.1");
    private static final String EXECUTE = "execute(Lorg/apache/http/nio/protocol/HttpAsyncRequestProducer;"
            + "Lorg/apache/http/nio/protocol/HttpAsyncResponseConsumer;Lorg/apache/http/protocol/HttpContext;"
            + "Lorg/apache/http/concurrent/FutureCallback;)Ljava/util/concurrent/Future;";

    @Override
    public Target[] targets() {
        return new Target[] {
            new Target("org.apache.http.impl.nio.client.InternalHttpAsyncClient").advise("execute/4", "apache4async.ExecuteAdvice")
                    .relocatable(ROOT, EXECUTE),
            new Target("org.apache.http.impl.nio.client.MinimalHttpAsyncClient").advise("execute/4", "apache4async.ExecuteAdvice")
                    .relocatable(ROOT, EXECUTE)};
    }

    @Override
    public Object[] hooks(ModuleContext context) {
        return new Object[] {new Apache4AsyncCalls(context.engine, context.depth)};
    }
}
