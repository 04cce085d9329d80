package dev.retryafter.it.harness;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1, made once per test JVM with the JDK's own keytool: the server's
 * {@link #server()} context presents it, a client's {@link #client()} context trusts it and nothing else.
 */
public final class SelfSignedTls {

    private static final char[] PASSWORD = "changeit".toCharArray();
    private static SelfSignedTls made;

    private final KeyStore keys;
    private final Path store;

    private SelfSignedTls(KeyStore keys, Path store) {
        this.keys = keys;
        this.store = store;
    }

    public static synchronized SelfSignedTls get() throws IOException, GeneralSecurityException, InterruptedException {
        if (made == null) {
            Path store = Files.createTempFile(ChildJvm.workDir(), "loopback-", ".p12");
            Files.delete(store); // keytool makes the file itself
            Path keytool = Paths.get(System.getProperty("java.home"), "bin", "keytool");
            Process process = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "loopback", "-keyalg", "RSA",
                    "-keysize", "2048", "-validity", "2", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1",
                    "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", new String(PASSWORD)))
                    .redirectErrorStream(true).start();
            String said = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IOException("keytool could not make a certificate: " + said);
            }
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                keys.load(in, PASSWORD);
            }
            made = new SelfSignedTls(keys, store);
        }
        return made;
    }

    public SSLContext server() throws GeneralSecurityException {
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(keys, PASSWORD);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(factory.getKeyManagers(), null, null);
        return context;
    }

    public SSLContext client() throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new javax.net.ssl.TrustManager[] {trustManager()}, null);
        return context;
    }

    /** A child JVM's system properties that make its default trust this certificate and nothing else. */
    public List<String> trustedByDefault() {
        return List.of("-Djavax.net.ssl.trustStore=" + store, "-Djavax.net.ssl.trustStorePassword=" + new String(PASSWORD),
                "-Djavax.net.ssl.trustStoreType=PKCS12");
    }

    /** What OkHttp wants beside the socket factory. */
    public X509TrustManager trustManager() throws GeneralSecurityException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(keys);
        return (X509TrustManager) factory.getTrustManagers()[0];
    }
}
