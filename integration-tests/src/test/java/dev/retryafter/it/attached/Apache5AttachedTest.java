package dev.retryafter.it.attached;

import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpRequestRetryExec;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InterruptedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Apache HttpClient 5 classic in this very JVM, which runs with the built agent attached; and what is its own. */
class Apache5AttachedTest extends AbstractClientSuite {

    private static final CloseableHttpClient CLIENT = HttpClients.createDefault();

    @Override
    int get(String url) throws Exception {
        return CLIENT.execute(new HttpGet(url), response -> {
            EntityUtils.consume(response.getEntity());
            return response.getCode();
        });
    }

    @Override
    int postOnce(String url, String body) throws Exception {
        HttpPost post = new HttpPost(url);
        post.setEntity(new InputStreamEntity(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)), ContentType.TEXT_PLAIN));
        return CLIENT.execute(post, response -> response.getCode());
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        HttpPost post = new HttpPost(url);
        post.setEntity(new StringEntity(body, ContentType.TEXT_PLAIN));
        return CLIENT.execute(post, response -> response.getCode());
    }

    /** As Apache's own waits do when interrupted: InterruptedIOException, the flag kept. */
    @Test
    void apache5AnInterruptEndsTheWaitWithTheFlagKept() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("1"));
             CloseableHttpClient client = HttpClients.createDefault()) {
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            CompletableFuture<Boolean> flagAfterwards = new CompletableFuture<>();
            Thread sender = new Thread(() -> {
                try {
                    client.execute(new HttpGet(server.url("/records/1")), response -> response.getCode());
                    thrown.complete(null);
                } catch (Exception e) {
                    thrown.complete(e);
                }
                flagAfterwards.complete(Thread.currentThread().isInterrupted());
            });
            sender.start();
            server.awaitRequests(1, Duration.ofSeconds(10)); // refused: the retry waits its sanitised second
            sender.interrupt();
            assertTrue(thrown.get(5, TimeUnit.SECONDS) instanceof InterruptedIOException, () -> "thrown: " + thrown.join());
            assertEquals(true, flagAfterwards.get(5, TimeUnit.SECONDS));
            sender.join(5_000);
            assertEquals(1, server.requests(), "not retried after the interrupt");
        }
    }

    /** An application's exec handler that hands every request to a second client: governed once, not three times three. */
    @Test
    void aClientInsideAnotherIsGovernedOnce() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("0"));
             CloseableHttpClient inner = HttpClients.createDefault();
             CloseableHttpClient outer = HttpClients.custom()
                     .addExecInterceptorFirst("delegate", (request, scope, chain) -> inner.execute(request))
                     .build()) {
            int status = outer.execute(new HttpGet(server.url("/records/1")), response -> {
                EntityUtils.consume(response.getEntity());
                return response.getCode();
            });
            assertEquals(429, status);
            assertEquals(3, server.requests(), "max-attempts is 3, whatever the nesting");
        }
    }

    /** An application's own strategy that honours Retry-After literally, as its authors read the RFC. */
    @Test
    void anApplicationsOwnApache5StrategyIsGovernedToo() throws Exception {
        org.apache.hc.client5.http.HttpRequestRetryStrategy literal = new org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy(
                10, org.apache.hc.core5.util.TimeValue.ofSeconds(1)) {
            @Override
            public boolean retryRequest(org.apache.hc.core5.http.HttpResponse response, int execCount,
                                        org.apache.hc.core5.http.protocol.HttpContext context) {
                return execCount <= 10 && response.getCode() == 429;
            }
        };
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("3600"));
             CloseableHttpClient client = HttpClients.custom().setRetryStrategy(literal).build()) {
            long start = System.nanoTime();
            int status = client.execute(new HttpGet(server.url("/records/1")), response -> response.getCode());
            assertEquals(429, status);
            assertEquals(3, server.requests(), "the agent's three attempts, not ten more beneath each");
            assertTrue(System.nanoTime() - start < 600_000_000_000L, "no hour asleep on Retry-After: 3600");
        }
    }

    /** A connection that dies is the client's to retry: the agent governs refusals, not I/O errors. */
    @Test
    void apache5sOwnRetryAfterAnIoErrorStaysItsOwn() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> n == 0 ? Reply.hangUp() : Reply.ok());
             CloseableHttpClient client = HttpClients.createDefault()) {
            int status = client.execute(new HttpGet(server.url("/records/1")), response -> response.getCode());
            assertEquals(200, status);
            assertEquals(2, server.requests(), "Apache's default strategy resent the GET after the dropped connection");
        }
    }

    @Test
    void apache5sOwnStrategyDoesNotDoubleTheAttempts() throws Exception {
        try (ScriptedServer server = new ScriptedServer(n -> Reply.refused("1"));
             CloseableHttpClient client = HttpClients.createDefault()) {
            long start = System.nanoTime();
            int status = client.execute(new HttpGet(server.url("/records/1")), response -> response.getCode());
            assertEquals(429, status);
            assertEquals(3, server.requests());
            // The count is the verdict (each wait of Apache's beneath comes with a resend); the time only rules out an hour.
            assertTrue(System.nanoTime() - start < 600_000_000_000L, "no hour asleep beneath");
        }
    }

    /**
     * The default strategy, asked about every response, answers for itself (the test above is its
     * behaviour) and has no reflective guard in front; a subclass of it, which may answer otherwise, has one.
     */
    @Test
    void apache5sDefaultStrategyHasNoGuardInFront() throws Exception {
        HttpRequestRetryStrategy plain = DefaultHttpRequestRetryStrategy.INSTANCE;
        HttpRequestRetryStrategy subclass = new DefaultHttpRequestRetryStrategy() { };
        assertSame(plain, strategyOf(new HttpRequestRetryExec(plain)));
        assertTrue(Proxy.isProxyClass(strategyOf(new HttpRequestRetryExec(subclass)).getClass()), "a subclass is guarded");
    }

    private static Object strategyOf(HttpRequestRetryExec exec) throws ReflectiveOperationException {
        Field strategy = HttpRequestRetryExec.class.getDeclaredField("retryStrategy");
        strategy.setAccessible(true);
        return strategy.get(exec);
    }
}
