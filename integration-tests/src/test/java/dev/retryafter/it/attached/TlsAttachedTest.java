package dev.retryafter.it.attached;

import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.ScriptedServer;
import dev.retryafter.it.harness.ScriptedServer.Reply;
import dev.retryafter.it.harness.SelfSignedTls;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.ClientTlsStrategyBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Portals are HTTPS: the blocking clients against a loopback portal over TLS with a self-signed certificate
 * (each client trusting it, as a scraper configured for its portal would), in this very JVM, which runs with the
 * built agent attached. The refusals are retried no sooner than min-sleep and the record arrives, as over HTTP.
 */
class TlsAttachedTest {

    @BeforeEach
    void agent() {
        Hooks.requireAgent();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"java.net.http", "HttpsURLConnection", "OkHttp", "Apache 5", "Apache 4"})
    void refusalsOverTlsAreRetriedNoSoonerThanMinSleepAndTheRecordArrives(String client) throws Exception {
        SelfSignedTls tls = SelfSignedTls.get();
        try (ScriptedServer server = new ScriptedServer(n -> n < 2 ? Reply.refused("0") : Reply.ok(), tls.server())) {
            String url = server.url("/records/1");
            assertEquals("https", URI.create(url).getScheme());

            assertEquals(200, get(client, url, tls), client);
            assertEquals(3, server.requests(), "two refusals retried by the agent, nothing stacked beneath");
            MinSleepFloor.assertKeptBetween(server.arrivals, AbstractClientSuite.MIN_SLEEP_MILLIS, client);
        }
    }

    private static int get(String client, String url, SelfSignedTls tls) throws Exception {
        SSLContext trusting = tls.client();
        switch (client) {
            case "java.net.http": {
                HttpClient http = HttpClient.newBuilder().sslContext(trusting).build();
                return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            }
            case "HttpsURLConnection": {
                HttpsURLConnection connection = (HttpsURLConnection) new URL(url).openConnection();
                connection.setSSLSocketFactory(trusting.getSocketFactory());
                int status = connection.getResponseCode();
                try (InputStream body = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
                    if (body != null) {
                        body.readAllBytes();
                    }
                }
                return status;
            }
            case "OkHttp": {
                OkHttpClient ok = new OkHttpClient.Builder().sslSocketFactory(trusting.getSocketFactory(), tls.trustManager()).build();
                try (okhttp3.Response response = ok.newCall(new Request.Builder().url(url).build()).execute()) {
                    return response.code();
                }
            }
            case "Apache 5": {
                try (CloseableHttpClient apache = HttpClients.custom().setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setTlsSocketStrategy(ClientTlsStrategyBuilder.create().setSslContext(trusting).buildClassic()).build()).build()) {
                    return apache.execute(new HttpGet(url), response -> response.getCode());
                }
            }
            case "Apache 4": {
                try (org.apache.http.impl.client.CloseableHttpClient apache = org.apache.http.impl.client.HttpClients.custom()
                        .setSSLContext(trusting).build();
                     org.apache.http.client.methods.CloseableHttpResponse response = apache.execute(
                             new org.apache.http.client.methods.HttpGet(url))) {
                    return response.getStatusLine().getStatusCode();
                }
            }
            default:
                throw new IllegalArgumentException(client);
        }
    }
}
