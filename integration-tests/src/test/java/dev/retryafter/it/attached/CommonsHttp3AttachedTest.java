package dev.retryafter.it.attached;

import org.apache.commons.httpclient.HttpClient;
import org.apache.commons.httpclient.HttpMethod;
import org.apache.commons.httpclient.MultiThreadedHttpConnectionManager;
import org.apache.commons.httpclient.methods.GetMethod;
import org.apache.commons.httpclient.methods.InputStreamRequestEntity;
import org.apache.commons.httpclient.methods.PostMethod;
import org.apache.commons.httpclient.methods.StringRequestEntity;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/** Commons HttpClient 3.1 in this very JVM, which runs with the built agent attached. */
class CommonsHttp3AttachedTest extends AbstractClientSuite {

    private static final HttpClient CLIENT = new HttpClient(new MultiThreadedHttpConnectionManager());

    @Override
    int get(String url) throws Exception {
        return status(new GetMethod(url));
    }

    @Override
    int postOnce(String url, String body) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        PostMethod post = new PostMethod(url);
        post.setRequestEntity(new InputStreamRequestEntity(new ByteArrayInputStream(bytes), bytes.length, "text/plain"));
        return status(post);
    }

    @Override
    int postReplayable(String url, String body) throws Exception {
        PostMethod post = new PostMethod(url);
        post.setRequestEntity(new StringRequestEntity(body, "text/plain", "UTF-8"));
        return status(post);
    }

    private static int status(HttpMethod method) throws Exception {
        try {
            int status = CLIENT.executeMethod(method);
            method.getResponseBody();
            return status;
        } finally {
            method.releaseConnection();
        }
    }
}
