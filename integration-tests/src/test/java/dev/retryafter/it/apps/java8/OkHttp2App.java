package dev.retryafter.it.apps.java8;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * OkHttp 2.7 ({@code com.squareup.okhttp}), as old code uses it, mostly through reflection (this module's okio is 3.x,
 * OkHttp 2's is 1.x: only a body of the application's own class names OkHttp 2's types). Java 8 bytecode.
 * <ul>
 * <li>{@code records URL N}: N GETs of {@code URL<i>} with {@code execute()}, then N with {@code enqueue()}; prints
 * {@code EXECUTE <ok> of N} and {@code ENQUEUE <ok> of N}, ok being the 200s whose body was read whole.</li>
 * <li>{@code url-records URL N}: N GETs of {@code URL<i>} through {@code OkUrlFactory}'s {@code HttpURLConnection}, each
 * read by {@code getResponseCode()} then its stream; prints {@code URL <ok> of N}. {@code url-connected URL N} the same,
 * each connection {@code connect()}ed first. {@code url-once URL}: one such GET; prints
 * {@code STATUS <code> <Retry-After>}, or {@code FAILED <exception>}. {@code url-disconnect URL}: one such GET, the
 * connection disconnected from another thread 2 s in; prints {@code DISCONNECT <ms> ms: <how it ended>}, then
 * {@code AGAIN <how a second read ends>}.</li>
 * <li>{@code once URL}: one GET; prints {@code STATUS <code> <body length>}, or {@code FAILED <exception>}.</li>
 * <li>{@code cancel URL}: one GET, which the host refuses, cancelled from another thread 2 s in; prints
 * {@code CANCEL <ms> ms: <how it ended>}; {@code cancel-enqueued URL} the same for a GET enqueued, as its callback
 * hears the end.</li>
 * <li>{@code post-string URL}, {@code post-form URL}, {@code post-multipart URL}, {@code post-own URL}: one POST of
 * OkHttp's body of a string, a form, a multipart, or a body of the application's own class (which could stream once);
 * prints {@code STATUS <code> <body length>}.</li>
 * </ul>
 */
public final class OkHttp2App {

    private static final ClassLoader LOADER = OkHttp2App.class.getClassLoader();

    private OkHttp2App() {
    }

    public static void main(String[] args) throws Exception {
        Object client = type("OkHttpClient").getConstructor().newInstance();
        switch (args[0]) {
            case "records": {
                int n = Integer.parseInt(args[2]);
                int ok = 0;
                for (int i = 0; i < n; i++) {
                    ok += bodyOf(type("Call").getMethod("execute").invoke(call(client, args[1] + i))) >= 0 ? 1 : 0;
                }
                System.out.println("EXECUTE " + ok + " of " + n);
                System.out.println("ENQUEUE " + enqueueAll(client, args[1], n) + " of " + n);
                break;
            }
            case "url-records":
            case "url-connected": {
                int n = Integer.parseInt(args[2]);
                int ok = 0;
                for (int i = 0; i < n; i++) {
                    HttpURLConnection connection = open(client, args[1] + i);
                    if (args[0].equals("url-connected")) {
                        connection.connect();
                    }
                    ok += bodyOf(connection) >= 0 ? 1 : 0;
                }
                System.out.println("URL " + ok + " of " + n);
                break;
            }
            case "url-disconnect": {
                HttpURLConnection connection = open(client, args[1]);
                long start = System.nanoTime();
                Thread watchdog = new Thread(() -> {
                    try {
                        Thread.sleep(2_000);
                    } catch (InterruptedException e) {
                        return;
                    }
                    connection.disconnect();
                });
                watchdog.start();
                String ended = codeOrFailure(connection);
                System.out.println("DISCONNECT " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + ended);
                System.out.println("AGAIN " + codeOrFailure(connection));
                break;
            }
            case "url-once": {
                HttpURLConnection connection = open(client, args[1]);
                try {
                    int code = connection.getResponseCode();
                    System.out.println("STATUS " + code + " " + connection.getHeaderField("Retry-After"));
                } catch (IOException e) {
                    System.out.println("FAILED " + e);
                }
                break;
            }
            case "once":
            case "post-string":
            case "post-form":
            case "post-multipart":
            case "post-own": {
                try {
                    Object sent = bodyFor(args[0]);
                    Object response = type("Call").getMethod("execute").invoke(call(client, args[1], sent));
                    int code = (Integer) type("Response").getMethod("code").invoke(response);
                    Object body = type("Response").getMethod("body").invoke(response);
                    System.out.println("STATUS " + code + " " + ((String) type("ResponseBody").getMethod("string").invoke(body)).length());
                } catch (InvocationTargetException e) {
                    System.out.println("FAILED " + e.getCause());
                }
                break;
            }
            case "cancel-enqueued": {
                Object call = call(client, args[1]);
                long start = System.nanoTime();
                BlockingQueue<String> outcome = new ArrayBlockingQueue<>(1);
                type("Call").getMethod("enqueue", type("Callback")).invoke(call, callback(outcome));
                Thread.sleep(2_000);
                type("Call").getMethod("cancel").invoke(call);
                String ended = outcome.poll(60, TimeUnit.SECONDS);
                System.out.println("CANCEL " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + ended);
                break;
            }
            default: { // cancel
                Object call = call(client, args[1]);
                Thread canceller = new Thread(() -> {
                    try {
                        Thread.sleep(2_000);
                        type("Call").getMethod("cancel").invoke(call);
                    } catch (Exception e) {
                        e.printStackTrace();
                    }
                });
                canceller.start();
                long start = System.nanoTime();
                String outcome;
                try {
                    Object response = type("Call").getMethod("execute").invoke(call);
                    outcome = "status " + type("Response").getMethod("code").invoke(response);
                } catch (InvocationTargetException e) {
                    outcome = String.valueOf(e.getCause());
                }
                System.out.println("CANCEL " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + outcome);
            }
        }
        System.exit(0);
    }

    /** The request body {@code mode} sends: none for a GET. */
    private static Object bodyFor(String mode) {
        switch (mode) {
            case "post-string":
                return com.squareup.okhttp.RequestBody.create(com.squareup.okhttp.MediaType.parse("text/plain"), "every time");
            case "post-form":
                return new com.squareup.okhttp.FormEncodingBuilder().add("record", "1").build();
            case "post-multipart":
                return new com.squareup.okhttp.MultipartBuilder().type(com.squareup.okhttp.MultipartBuilder.FORM)
                        .addFormDataPart("record", "1").build();
            case "post-own":
                return new OwnBody("once");
            default:
                return null;
        }
    }

    private static Class<?> type(String name) throws ClassNotFoundException {
        return Class.forName("com.squareup.okhttp." + name, true, LOADER);
    }

    private static Object call(Object client, String url) throws Exception {
        return call(client, url, null);
    }

    /** A call of {@code url}: a GET, or a POST of {@code body}. */
    private static Object call(Object client, String url, Object body) throws Exception {
        Object builder = type("Request$Builder").getConstructor().newInstance();
        type("Request$Builder").getMethod("url", String.class).invoke(builder, url);
        if (body != null) {
            type("Request$Builder").getMethod("post", type("RequestBody")).invoke(builder, body);
        }
        Object request = type("Request$Builder").getMethod("build").invoke(builder);
        return type("OkHttpClient").getMethod("newCall", type("Request")).invoke(client, request);
    }

    /** A connection to {@code url} from {@code client}'s {@code OkUrlFactory}, not yet connected. */
    private static HttpURLConnection open(Object client, String url) throws Exception {
        Object factory = type("OkUrlFactory").getConstructor(type("OkHttpClient")).newInstance(client);
        return (HttpURLConnection) type("OkUrlFactory").getMethod("open", URL.class).invoke(factory, new URL(url));
    }

    /** {@code connection}'s status code, or how reading it failed. */
    private static String codeOrFailure(HttpURLConnection connection) {
        try {
            return "status " + connection.getResponseCode();
        } catch (IOException e) {
            return String.valueOf(e);
        }
    }

    /** The body's length for a 200 read whole through {@code connection}'s streams, else -1. */
    private static int bodyOf(HttpURLConnection connection) throws IOException {
        int code = connection.getResponseCode();
        InputStream in = code < 400 ? connection.getInputStream() : connection.getErrorStream();
        int length = 0;
        if (in != null) {
            try (InputStream body = in) {
                while (body.read() >= 0) {
                    length++;
                }
            }
        }
        return code == 200 ? length : -1;
    }

    /** The body's length for a 200 read whole, else -1. */
    private static int bodyOf(Object response) throws Exception {
        int code = (Integer) type("Response").getMethod("code").invoke(response);
        Object body = type("Response").getMethod("body").invoke(response);
        String text = (String) type("ResponseBody").getMethod("string").invoke(body);
        return code == 200 ? text.length() : -1;
    }

    /** Enqueues N GETs at once and waits for each callback: how many were 200s read whole. */
    private static int enqueueAll(Object client, String url, int n) throws Exception {
        CountDownLatch done = new CountDownLatch(n);
        AtomicInteger ok = new AtomicInteger();
        Class<?> callback = type("Callback");
        Object listener = Proxy.newProxyInstance(LOADER, new Class<?>[] {callback}, (proxy, method, a) -> {
            if (method.getDeclaringClass() == Object.class) {
                return method.getName().equals("equals") ? proxy == a[0] : method.getName().equals("hashCode")
                        ? System.identityHashCode(proxy) : "callback";
            }
            if (method.getName().equals("onResponse")) {
                try {
                    ok.addAndGet(bodyOf(a[0]) >= 0 ? 1 : 0);
                } catch (Exception e) {
                    throw new IOException(e);
                }
            } else {
                System.out.println("ENQUEUED FAILED " + a[1]);
            }
            done.countDown();
            return null;
        });
        Method enqueue = type("Call").getMethod("enqueue", callback);
        for (int i = 0; i < n; i++) {
            enqueue.invoke(call(client, url + (100 + i)), listener);
        }
        done.await(120, TimeUnit.SECONDS);
        return ok.get();
    }

    /** A callback that offers how its call ended: "status N" or the failure. */
    private static Object callback(BlockingQueue<String> outcome) throws ClassNotFoundException {
        return Proxy.newProxyInstance(LOADER, new Class<?>[] {type("Callback")}, (proxy, method, a) -> {
            if (method.getDeclaringClass() == Object.class) {
                return method.getName().equals("equals") ? proxy == a[0] : method.getName().equals("hashCode")
                        ? System.identityHashCode(proxy) : "callback";
            }
            outcome.offer(method.getName().equals("onResponse") ? "status " + type("Response").getMethod("code").invoke(a[0])
                    : String.valueOf(a[1]));
            return null;
        });
    }

    /** A body of the application's own class: for all OkHttp 2 knows, it streams once. */
    private static final class OwnBody extends com.squareup.okhttp.RequestBody {
        private final byte[] bytes;

        OwnBody(String text) {
            this.bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public com.squareup.okhttp.MediaType contentType() {
            return com.squareup.okhttp.MediaType.parse("text/plain");
        }

        @Override
        public long contentLength() {
            return bytes.length;
        }

        @Override
        public void writeTo(okio.BufferedSink sink) throws IOException {
            sink.write(bytes);
        }
    }
}
