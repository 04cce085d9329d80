package dev.retryafter.it.apps;

import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/**
 * One POST whose body the client cannot send twice, and its status printed: {@code urlconnection}
 * in fixed-length streaming mode, {@code okhttp} with a one-shot body. Runs on OkHttp 3.14, 4.x and 5.x.
 */
public final class PostOnceApp {

    private PostOnceApp() {
    }

    public static void main(String[] args) throws Exception {
        String client = args[0];
        String url = args[1];
        byte[] body = "once".getBytes(StandardCharsets.UTF_8);
        int status;
        if (client.equals("urlconnection")) {
            HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
            connection.setDoOutput(true);
            connection.setFixedLengthStreamingMode(body.length);
            try (OutputStream out = connection.getOutputStream()) {
                out.write(body);
            }
            status = connection.getResponseCode();
            try (InputStream error = connection.getErrorStream()) {
                if (error != null) {
                    error.readAllBytes();
                }
            }
        } else {
            OkHttpClient okhttp = new OkHttpClient();
            RequestBody oneShot = new RequestBody() {
                @Override
                public MediaType contentType() {
                    return MediaType.get("text/plain");
                }

                @Override
                public void writeTo(BufferedSink sink) throws IOException {
                    sink.write(body);
                }

                @Override
                public boolean isOneShot() {
                    return true;
                }
            };
            try (Response response = okhttp.newCall(new Request.Builder().url(url).post(oneShot).build()).execute()) {
                status = response.code();
            }
            okhttp.dispatcher().executorService().shutdown();
            okhttp.connectionPool().evictAll();
        }
        System.out.println("STATUS " + status);
    }
}
