package dev.retryafter.it.apps;

import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClientException;
import org.springframework.web.client.RestTemplate;

/**
 * A Spring application with no retry logic: {@code RestTemplate} on Spring's
 * {@code HttpComponentsClientHttpRequestFactory}, Apache 5 in Spring 6, Apache 4 in Spring 5.3 (the
 * same source runs on both: it uses only what the two share). Prints the legacy scraper's result line.
 * Args: base URL, records.
 */
public final class RestTemplateApp {

    private RestTemplateApp() {
    }

    public static void main(String[] args) {
        String url = args[0];
        int records = Integer.parseInt(args[1]);
        HttpComponentsClientHttpRequestFactory factory = new HttpComponentsClientHttpRequestFactory();
        RestTemplate rest = new RestTemplate(factory);
        int fetched = 0;
        int failed = 0;
        long start = System.nanoTime();
        for (int i = 0; i < records; i++) {
            try {
                rest.getForObject(url + "/records/" + i, String.class);
                fetched++;
            } catch (RestClientException e) {
                failed++;
                System.out.println("FAILURE " + e);
            }
        }
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        System.out.println("RESULT client=spring records=" + records + " fetched=" + fetched + " refused=0 failed=" + failed
                + " elapsedMillis=" + elapsed);
    }
}
