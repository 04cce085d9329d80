package dev.retryafter.it.apps;

import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * Requests with a null target host, as some frameworks make them: Apache 5's
 * {@code executeOpen(null, request, context)} with an absolute URI (Spring 6 does this), and Apache 4's
 * {@code execute((HttpHost) null, request)} with a relative URI and the {@code http.default-host}
 * parameter. Prints the legacy scraper's result line. Args: client, base URL, records.
 */
public final class NullTargetApp {

    private NullTargetApp() {
    }

    public static void main(String[] args) throws Exception {
        String base = args[1];
        int records = Integer.parseInt(args[2]);
        int fetched = 0;
        int refused = 0;
        long start = System.nanoTime();
        if (args[0].equals("apache5")) {
            try (CloseableHttpClient client = HttpClients.createDefault()) {
                for (int i = 0; i < records; i++) {
                    try (ClassicHttpResponse response = client.executeOpen(null, new HttpGet(base + "/records/" + i), null)) {
                        EntityUtils.consume(response.getEntity());
                        if (response.getCode() == 200) {
                            fetched++;
                        } else {
                            refused++;
                        }
                    }
                }
            }
        } else {
            java.net.URI uri = java.net.URI.create(base);
            org.apache.http.HttpHost host = new org.apache.http.HttpHost(uri.getHost(), uri.getPort(), uri.getScheme());
            try (org.apache.http.impl.client.CloseableHttpClient client = org.apache.http.impl.client.HttpClients.createDefault()) {
                for (int i = 0; i < records; i++) {
                    org.apache.http.client.methods.HttpGet get = new org.apache.http.client.methods.HttpGet("/records/" + i);
                    setDefaultHost(get, host);
                    try (org.apache.http.client.methods.CloseableHttpResponse response = client.execute((org.apache.http.HttpHost) null, get)) {
                        org.apache.http.util.EntityUtils.consume(response.getEntity());
                        if (response.getStatusLine().getStatusCode() == 200) {
                            fetched++;
                        } else {
                            refused++;
                        }
                    }
                }
            }
        }
        System.out.println("RESULT client=" + args[0] + " records=" + records + " fetched=" + fetched + " refused=" + refused
                + " failed=0 elapsedMillis=" + (System.nanoTime() - start) / 1_000_000);
    }

    @SuppressWarnings("deprecation") // the parameter API: where Apache 4 looks for a default host
    private static void setDefaultHost(org.apache.http.client.methods.HttpGet get, org.apache.http.HttpHost host) {
        get.getParams().setParameter(org.apache.http.client.params.ClientPNames.DEFAULT_HOST, host);
    }
}
