package dev.retryafter.agent.instrument;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UngovernedClientsTest {

    @Test
    void aMarkedClassNamesItsClientOnce() {
        UngovernedClients clients = new UngovernedClients();
        clients.onLoaded("java/lang/String");
        clients.onLoaded("io/helidon/webclient/api/WebClient");
        clients.onLoaded("org/asynchttpclient/DefaultAsyncHttpClient"); // governed: not named
        clients.onLoaded("org/eclipse/jetty/client/api/Request"); // 9.4-11: governed, not named
        clients.onLoaded("org/eclipse/jetty/client/HttpClient"); // 12 and 9.4-11 governed
        clients.onLoaded("org/apache/http/impl/nio/client/CloseableHttpAsyncClient"); // governed: not named
        clients.onLoaded("org/apache/hc/client5/http/impl/async/CloseableHttpAsyncClient"); // governed: not named
        clients.onLoaded("io/helidon/webclient/api/WebClient");
        clients.onLoaded("com/squareup/okhttp/OkHttpClient"); // OkHttp 2: governed, not named
        clients.onLoaded("com/squareup/okhttp/internal/huc/HttpURLConnectionImpl"); // its OkUrlFactory: governed, not named
        clients.onLoaded("org/apache/commons/httpclient/HttpClient"); // governed: not named
        clients.onLoaded("reactor/netty/http/client/HttpClient"); // governed: not named
        assertEquals(List.of("Helidon WebClient (io.helidon.webclient.api.WebClient)"), clients.loaded());
    }

    @Test
    void nettysCodecUnderAGovernedClientIsNotNamed() {
        UngovernedClients clients = new UngovernedClients();
        clients.onLoaded("org/asynchttpclient/AsyncHttpClient");
        clients.onLoaded("io/netty/handler/codec/http/HttpClientCodec");
        assertEquals(List.of(), clients.loaded());
        UngovernedClients vertx = new UngovernedClients();
        vertx.onLoaded("io/vertx/ext/web/client/WebClient");
        vertx.onLoaded("io/vertx/core/http/impl/HttpClientImpl");
        vertx.onLoaded("io/netty/handler/codec/http/HttpClientCodec");
        assertEquals(List.of(), vertx.loaded(), "Vert.x's WebClient is governed, and its HttpClient and Netty beneath it");
        UngovernedClients reactor = new UngovernedClients();
        reactor.onLoaded("reactor/netty/http/client/HttpClient");
        reactor.onLoaded("io/netty/handler/codec/http/HttpClientCodec");
        assertEquals(List.of(), reactor.loaded(), "Reactor Netty's HttpClient is governed, and Netty beneath it");
        UngovernedClients alone = new UngovernedClients();
        alone.onLoaded("io/netty/handler/codec/http/HttpClientCodec");
        assertEquals(List.of("Netty HTTP codec (io.netty.handler.codec.http.HttpClientCodec)"), alone.loaded());
    }

    @Test
    void governedTrafficAloneNeedsNoWord() {
        assertNull(UngovernedClients.note(Collections.emptyList(), true));
    }

    @Test
    void nothingGovernedIsSaid() {
        assertTrue(UngovernedClients.note(Collections.emptyList(), false).startsWith("no request was governed"));
    }

    @Test
    void anUngovernedClientIsNamedWhetherOrNotOthersWereGoverned() {
        List<String> jetty = List.of("Jetty HttpClient (org.eclipse.jetty.client.HttpClient)");
        String alongside = UngovernedClients.note(jetty, true);
        assertTrue(alongside.startsWith("ungoverned HTTP: this JVM loaded Jetty HttpClient"), alongside);
        assertTrue(UngovernedClients.note(jetty, false).endsWith("; no request was governed at all"));
    }
}
