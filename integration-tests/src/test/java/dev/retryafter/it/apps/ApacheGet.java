package dev.retryafter.it.apps;

import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.HttpRequestInterceptor;
import org.apache.hc.core5.util.Timeout;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * The small test applications' view of both Apache clients, built as applications build them: a
 * pool of eight per route, a 120 s socket timeout, and an interceptor of the application's own that
 * throws an {@code AssertionError} on a request carrying {@code X-Fail}. And of Commons HttpClient 3
 * ({@code commons3}), which has no interceptors: the same pool and timeout.
 */
abstract class ApacheGet implements Closeable {

    static final String FAIL_HEADER = "X-Fail";

    /** A response the application holds: status, body, close. */
    interface Response extends Closeable {
        int status();

        InputStream body() throws IOException;
    }

    abstract Response get(String url, boolean fail) throws IOException;

    static ApacheGet of(String client) {
        switch (client) {
            case "apache4":
                return new Apache4();
            case "commons3":
                return new Commons3();
            default:
                return new Apache5();
        }
    }

    static final class Apache5 extends ApacheGet {
        private final CloseableHttpClient client;

        Apache5() {
            PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
                    .setMaxConnPerRoute(8).setMaxConnTotal(8)
                    .setDefaultConnectionConfig(ConnectionConfig.custom().setSocketTimeout(Timeout.ofSeconds(120)).build()).build();
            HttpRequestInterceptor own = (request, entity, context) -> {
                if (request.containsHeader(FAIL_HEADER)) {
                    throw new AssertionError("the application's own interceptor");
                }
            };
            client = HttpClients.custom().setConnectionManager(pool).addRequestInterceptorFirst(own).build();
        }

        @Override
        Response get(String url, boolean fail) throws IOException {
            HttpGet get = new HttpGet(url);
            if (fail) {
                get.setHeader(FAIL_HEADER, "yes");
            }
            @SuppressWarnings("deprecation") // execute without a handler: the application holds the response, as streaming code does
            CloseableHttpResponse response = client.execute(get);
            return new Response() {
                public int status() {
                    return response.getCode();
                }

                public InputStream body() throws IOException {
                    return response.getEntity().getContent();
                }

                public void close() throws IOException {
                    response.close();
                }
            };
        }

        @Override
        public void close() throws IOException {
            client.close();
        }
    }

    static final class Apache4 extends ApacheGet {
        private final org.apache.http.impl.client.CloseableHttpClient client;

        Apache4() {
            org.apache.http.impl.conn.PoolingHttpClientConnectionManager pool = new org.apache.http.impl.conn.PoolingHttpClientConnectionManager();
            pool.setMaxTotal(8);
            pool.setDefaultMaxPerRoute(8);
            org.apache.http.HttpRequestInterceptor own = (request, context) -> {
                if (request.containsHeader(FAIL_HEADER)) {
                    throw new AssertionError("the application's own interceptor");
                }
            };
            client = org.apache.http.impl.client.HttpClientBuilder.create().setConnectionManager(pool)
                    .addInterceptorFirst(own)
                    .setDefaultRequestConfig(org.apache.http.client.config.RequestConfig.custom().setSocketTimeout(120_000).build())
                    .build();
        }

        @Override
        Response get(String url, boolean fail) throws IOException {
            org.apache.http.client.methods.HttpGet get = new org.apache.http.client.methods.HttpGet(url);
            if (fail) {
                get.setHeader(FAIL_HEADER, "yes");
            }
            org.apache.http.client.methods.CloseableHttpResponse response = client.execute(get);
            return new Response() {
                public int status() {
                    return response.getStatusLine().getStatusCode();
                }

                public InputStream body() throws IOException {
                    return response.getEntity().getContent();
                }

                public void close() throws IOException {
                    response.close();
                }
            };
        }

        @Override
        public void close() throws IOException {
            client.close();
        }
    }

    /** A response is its method: closing it releases the connection, as 3.x code does in {@code finally}. */
    static final class Commons3 extends ApacheGet {
        private final org.apache.commons.httpclient.MultiThreadedHttpConnectionManager pool =
                new org.apache.commons.httpclient.MultiThreadedHttpConnectionManager();
        private final org.apache.commons.httpclient.HttpClient client;

        Commons3() {
            pool.getParams().setDefaultMaxConnectionsPerHost(8);
            pool.getParams().setMaxTotalConnections(8);
            pool.getParams().setSoTimeout(120_000);
            client = new org.apache.commons.httpclient.HttpClient(pool);
        }

        @Override
        Response get(String url, boolean fail) throws IOException {
            org.apache.commons.httpclient.methods.GetMethod get = new org.apache.commons.httpclient.methods.GetMethod(url);
            int status = client.executeMethod(get);
            return new Response() {
                public int status() {
                    return status;
                }

                public InputStream body() throws IOException {
                    InputStream body = get.getResponseBodyAsStream();
                    return body != null ? body : InputStream.nullInputStream();
                }

                public void close() {
                    get.releaseConnection();
                }
            };
        }

        @Override
        public void close() {
            pool.shutdown();
        }
    }
}
