package dev.retryafter.it.apps.java8;

import org.apache.commons.httpclient.HttpClient;
import org.apache.commons.httpclient.HttpMethod;
import org.apache.commons.httpclient.MultiThreadedHttpConnectionManager;
import org.apache.commons.httpclient.methods.GetMethod;
import org.apache.commons.httpclient.methods.HeadMethod;
import org.apache.commons.httpclient.methods.InputStreamRequestEntity;
import org.apache.commons.httpclient.methods.PostMethod;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Commons HttpClient 3.1 the ways old code uses it. Java 8 bytecode: it runs on every JDK.
 * <ul>
 * <li>{@code post-once URL}: one POST of a streamed body ({@code InputStreamRequestEntity} of a known
 * length, which 3.x cannot send twice); prints {@code STATUS <code> <body bytes>}.</li>
 * <li>{@code careless URL N}: N GETs in turn, each used differently, most of them carelessly: with
 * {@code new HttpClient()} (one connection), the status alone and nothing read or released (3.x
 * finishes that response at the next call), the body read to its end and never released; with a
 * pool, the body half read then released, aborted then released, a HEAD. Prints {@code DONE <n> <bytes>}.</li>
 * </ul>
 */
public final class CommonsHttp3App {

    private CommonsHttp3App() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[1];
        if (args[0].equals("post-once")) {
            byte[] body = "once".getBytes(StandardCharsets.UTF_8);
            PostMethod post = new PostMethod(url);
            post.setRequestEntity(new InputStreamRequestEntity(new ByteArrayInputStream(body), body.length, "text/plain"));
            try {
                int status = new HttpClient().executeMethod(post);
                System.out.println("STATUS " + status + " " + post.getResponseBody().length);
            } finally {
                post.releaseConnection();
            }
            return;
        }
        int requests = Integer.parseInt(args[2]);
        HttpClient single = new HttpClient();
        MultiThreadedHttpConnectionManager connections = new MultiThreadedHttpConnectionManager();
        HttpClient pooled = new HttpClient(connections);
        int done = 0;
        long bytes = 0;
        for (int i = 0; i < requests; i++) {
            String target = url + "?n=" + i;
            switch (i % 5) {
                case 0: // the status alone: nothing read, nothing released
                    done += single.executeMethod(new GetMethod(target)) == 200 ? 1 : 0;
                    break;
                case 1: { // read to the end, never released
                    GetMethod get = new GetMethod(target);
                    done += single.executeMethod(get) == 200 ? 1 : 0;
                    bytes += get.getResponseBody().length;
                    break;
                }
                case 2: { // half read, released
                    GetMethod get = new GetMethod(target);
                    try {
                        done += pooled.executeMethod(get) == 200 ? 1 : 0;
                        InputStream body = get.getResponseBodyAsStream();
                        bytes += body.read(new byte[8]);
                    } finally {
                        get.releaseConnection();
                    }
                    break;
                }
                case 3: { // aborted, released
                    GetMethod get = new GetMethod(target);
                    try {
                        done += pooled.executeMethod(get) == 200 ? 1 : 0;
                        get.abort();
                    } finally {
                        get.releaseConnection();
                    }
                    break;
                }
                default: { // no body at all
                    HttpMethod head = new HeadMethod(target);
                    try {
                        done += pooled.executeMethod(head) == 200 ? 1 : 0;
                    } finally {
                        head.releaseConnection();
                    }
                }
            }
        }
        connections.shutdown();
        System.out.println("DONE " + done + " " + bytes);
    }
}
