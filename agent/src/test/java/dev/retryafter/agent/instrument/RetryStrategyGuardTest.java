package dev.retryafter.agent.instrument;

import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.PolicyLookup;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.testing.VirtualClock;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.HttpRequestRetryStrategy;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.message.BasicClassicHttpRequest;
import org.apache.hc.core5.http.message.BasicClassicHttpResponse;
import org.apache.hc.core5.util.TimeValue;
import org.apache.http.HttpVersion;
import org.apache.http.client.ServiceUnavailableRetryStrategy;
import org.apache.http.impl.client.DefaultServiceUnavailableRetryStrategy;
import org.apache.http.message.BasicHttpResponse;
import org.apache.http.protocol.BasicHttpContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.SocketTimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guard on the real Apache strategies: inside a governed call it says no to retrying a status
 * the agent governs, and to everything else it answers as the strategy would.
 */
class RetryStrategyGuardTest {

    private final VirtualClock clock = new VirtualClock();
    private final RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock)
            .policies(PolicyLookup.everyHost(Policy.DEFAULTS)).build();
    private final CallDepth depth = new CallDepth();

    private final HttpRequestRetryStrategy apache5 = (HttpRequestRetryStrategy) RetryStrategyGuard.guard(
            new DefaultHttpRequestRetryStrategy(), HttpRequestRetryStrategy.class, depth);
    private final ServiceUnavailableRetryStrategy apache4 = (ServiceUnavailableRetryStrategy) RetryStrategyGuard.guard(
            new DefaultServiceUnavailableRetryStrategy(), ServiceUnavailableRetryStrategy.class, depth);

    @AfterEach
    void leaveTheCall() {
        depth.restore(null);
    }

    @Test
    void outsideAGovernedCallTheStrategyDecidesAsBefore() {
        assertFalse(depth.isInside());
        assertTrue(apache5.retryRequest(refusal5(429), 1, HttpClientContext.create()), "Apache 5's default retries a 429 once");
        assertTrue(apache4.retryRequest(refusal4(503), 1, new BasicHttpContext()), "Apache 4's retries a 503");
    }

    @Test
    void insideAGovernedCallAGovernedStatusIsTheAgentsToRetry() {
        depth.enter(call());
        assertFalse(apache5.retryRequest(refusal5(429), 1, HttpClientContext.create()));
        assertFalse(apache5.retryRequest(refusal5(503), 1, HttpClientContext.create()));
        assertFalse(apache4.retryRequest(refusal4(503), 1, new BasicHttpContext()));
    }

    @Test
    void insideAGovernedCallEverythingElseStaysTheStrategys() {
        depth.enter(call());
        HttpClientContext context = HttpClientContext.create();
        HttpRequestRetryStrategy retriesEveryStatus = (HttpRequestRetryStrategy) RetryStrategyGuard.guard(new DefaultHttpRequestRetryStrategy() {
            @Override
            public boolean retryRequest(org.apache.hc.core5.http.HttpResponse response, int execCount,
                                        org.apache.hc.core5.http.protocol.HttpContext httpContext) {
                return true;
            }
        }, HttpRequestRetryStrategy.class, depth);
        assertTrue(retriesEveryStatus.retryRequest(refusal5(500), 1, context), "a status the agent does not govern");
        assertFalse(retriesEveryStatus.retryRequest(refusal5(429), 1, context), "while one it governs stays the agent's");
        assertTrue(apache5.retryRequest(new BasicClassicHttpRequest("GET", "/"), new IOException("connection reset"), 1, context),
                "a retry after an I/O error");
        assertFalse(apache5.retryRequest(new BasicClassicHttpRequest("GET", "/"), new SocketTimeoutException(), 1, context),
                "and no retry after one it does not retry");
        assertEquals(TimeValue.ofSeconds(7), apache5.getRetryInterval(refusal5(429, "7"), 1, context), "how long it would wait");
        assertEquals(1000L, apache4.getRetryInterval());
    }

    @Test
    void theGuardIsAnObjectOfItsOwn() {
        assertTrue(apache5.equals(apache5));
        assertFalse(apache5.equals(apache4));
        assertEquals(System.identityHashCode(apache5), apache5.hashCode());
        assertTrue(apache5.toString().contains("DefaultHttpRequestRetryStrategy"), apache5.toString());
    }

    @Test
    void whatTheStrategyThrowsReachesTheCallerUnwrapped() {
        HttpRequestRetryStrategy failing = (HttpRequestRetryStrategy) RetryStrategyGuard.guard(new DefaultHttpRequestRetryStrategy() {
            @Override
            public boolean retryRequest(org.apache.hc.core5.http.HttpRequest request, IOException exception, int execCount,
                                        org.apache.hc.core5.http.protocol.HttpContext context) {
                throw new IllegalStateException("the application's own strategy failed");
            }
        }, HttpRequestRetryStrategy.class, depth);
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> failing.retryRequest(
                new BasicClassicHttpRequest("GET", "/"), new IOException(), 1, HttpClientContext.create()));
        assertEquals("the application's own strategy failed", thrown.getMessage());
    }

    @Test
    void aStrategyIsGuardedOnce() {
        assertSame(apache5, RetryStrategyGuard.guard(apache5, HttpRequestRetryStrategy.class, depth));
    }

    private Call call() {
        return engine.open("portal.test", 443, true);
    }

    private static BasicClassicHttpResponse refusal5(int status) {
        return refusal5(status, "3600");
    }

    private static BasicClassicHttpResponse refusal5(int status, String retryAfter) {
        BasicClassicHttpResponse response = new BasicClassicHttpResponse(status);
        response.addHeader("Retry-After", retryAfter);
        return response;
    }

    private static BasicHttpResponse refusal4(int status) {
        BasicHttpResponse response = new BasicHttpResponse(HttpVersion.HTTP_1_1, status, "refused");
        response.addHeader("Retry-After", "3600");
        return response;
    }
}
