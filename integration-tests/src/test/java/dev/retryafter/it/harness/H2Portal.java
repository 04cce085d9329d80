package dev.retryafter.it.harness;

import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.Message;
import org.apache.hc.core5.http.URIScheme;
import org.apache.hc.core5.http.impl.bootstrap.HttpAsyncServer;
import org.apache.hc.core5.http.message.BasicHttpResponse;
import org.apache.hc.core5.http.nio.AsyncRequestConsumer;
import org.apache.hc.core5.http.nio.AsyncServerRequestHandler;
import org.apache.hc.core5.http.nio.entity.AsyncEntityProducers;
import org.apache.hc.core5.http.nio.entity.StringAsyncEntityConsumer;
import org.apache.hc.core5.http.nio.support.BasicRequestConsumer;
import org.apache.hc.core5.http.nio.support.BasicResponseProducer;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.http2.impl.nio.bootstrap.H2ServerBootstrap;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.reactor.ListenerEndpoint;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

/**
 * An HTTP/2-only loopback portal, httpcore5-h2's own server, cleartext with prior knowledge. It answers the n-th request (from 0) with the status its script gives, a 429 with the
 * {@code Retry-After} given, and keeps when each request arrived and in which HTTP version.
 */
public final class H2Portal implements AutoCloseable {

    public final List<Long> arrivals = new CopyOnWriteArrayList<>();
    public final List<String> versions = new CopyOnWriteArrayList<>();
    private final HttpAsyncServer server;
    private final int port;

    public H2Portal(IntUnaryOperator statusOfNth, String retryAfter) throws Exception {
        AtomicInteger requests = new AtomicInteger();
        server = H2ServerBootstrap.bootstrap().setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_2)
                .setCanonicalHostName("127.0.0.1") // else a request to 127.0.0.1 is answered 421
                .register("*", new AsyncServerRequestHandler<Message<HttpRequest, String>>() {
            @Override
            public AsyncRequestConsumer<Message<HttpRequest, String>> prepare(HttpRequest request, EntityDetails entity,
                    HttpContext context) {
                return new BasicRequestConsumer<>(entity == null ? null : new StringAsyncEntityConsumer());
            }

            @Override
            public void handle(Message<HttpRequest, String> message, ResponseTrigger trigger, HttpContext context)
                    throws HttpException, IOException {
                arrivals.add(System.nanoTime());
                versions.add(String.valueOf(context.getProtocolVersion()));
                int status = statusOfNth.applyAsInt(requests.getAndIncrement());
                BasicHttpResponse response = new BasicHttpResponse(status);
                if (status == 429) {
                    response.addHeader("Retry-After", retryAfter);
                }
                trigger.submitResponse(new BasicResponseProducer(response,
                        AsyncEntityProducers.create(status == 429 ? "slow down" : "{\"id\":1}", ContentType.TEXT_PLAIN)), context);
            }
        }).create();
        server.start();
        ListenerEndpoint endpoint = server.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), URIScheme.HTTP)
                .get(10, TimeUnit.SECONDS);
        port = ((InetSocketAddress) endpoint.getAddress()).getPort();
        FreshPorts.had(port); // bound by the reactor: kept from the scripted servers at least
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    @Override
    public void close() {
        server.close(CloseMode.IMMEDIATE);
    }
}
