package dev.retryafter.it.apps;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * An application with its own slf4j binding (logback) and its own Byte Buddy, of another version
 * than the agent's. With the agent attached it must keep both, and its own log format.
 */
public final class OwnDependenciesApp {

    private static final Logger LOG = LoggerFactory.getLogger(OwnDependenciesApp.class);

    private OwnDependenciesApp() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        Class<?> made = new ByteBuddy().subclass(Object.class).name("app.Made").make()
                .load(OwnDependenciesApp.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER).getLoaded();
        String jar = ByteBuddy.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        LOG.info("hello; {} made {}", jar.substring(jar.lastIndexOf('/') + 1), made.getName());

        HttpClient jdk = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        for (int i = 0; i < 3; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/records/" + i)).timeout(Duration.ofSeconds(10)).build();
            LOG.info("java.net.http got {}", jdk.send(request, HttpResponse.BodyHandlers.ofString()).statusCode());
        }
        try (CloseableHttpClient apache = HttpClients.createDefault()) {
            int status = apache.execute(new HttpGet(url + "/records/9"), response -> response.getCode());
            LOG.info("apache 5 got {}", status);
        }
    }
}
