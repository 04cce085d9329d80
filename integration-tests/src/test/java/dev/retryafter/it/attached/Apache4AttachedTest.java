package dev.retryafter.it.attached;

import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpGet;
import org.apache.http.client.methods.HttpPost;
import org.apache.http.entity.InputStreamEntity;
import org.apache.http.entity.StringEntity;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.HttpClients;
import org.apache.http.util.EntityUtils;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/** Apache HttpClient 4 in this very JVM, which runs with the built agent attached. */
class Apache4AttachedTest extends AbstractClientSuite {

    private static final CloseableHttpClient CLIENT = HttpClients.createDefault();

    @Override
    int get(String url) throws Exception {
        try (CloseableHttpResponse response = CLIENT.execute(new HttpGet(url))) {
            EntityUtils.consume(response.getEntity());
            return response.getStatusLine().getStatusCode();
        }
    }

    @Override
    int postOnce(String url, String body) throws Exception {
        HttpPost post = new HttpPost(url);
        post.setEntity(new InputStreamEntity(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8))));
        return status(post);
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        HttpPost post = new HttpPost(url);
        post.setEntity(new StringEntity(body, StandardCharsets.UTF_8));
        return status(post);
    }

    private static int status(HttpPost post) throws Exception {
        try (CloseableHttpResponse response = CLIENT.execute(post)) {
            EntityUtils.consume(response.getEntity());
            return response.getStatusLine().getStatusCode();
        }
    }
}
