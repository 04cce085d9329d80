package dev.retryafter.it.apps;

import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.scraper.Fetcher;
import org.springframework.http.HttpEntity;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.web.client.HttpStatusCodeException;
import org.springframework.web.client.RestTemplate;

import java.time.Duration;

/** Spring's {@code RestTemplate} with its default request factory, which is {@code HttpURLConnection}. */
public final class RestTemplateFetcher implements Fetcher {

    private final RestTemplate template = new RestTemplate();

    public RestTemplateFetcher(Duration timeout) {
        // the default factory's timeouts are the JDK's: none, as an unchanged application has
    }

    @Override
    public int get(String url, String worker) {
        HttpHeaders headers = new HttpHeaders();
        headers.set(PortalServer.WORKER_HEADER, worker);
        try {
            return template.exchange(url, HttpMethod.GET, new HttpEntity<>(headers), byte[].class).getStatusCode().value();
        } catch (HttpStatusCodeException e) {
            return e.getStatusCode().value();
        }
    }

    @Override
    public void close() {
    }
}
