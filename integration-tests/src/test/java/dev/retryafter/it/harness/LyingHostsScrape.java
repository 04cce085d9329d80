package dev.retryafter.it.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One JVM with the agent, its fleet store on {@code redis}, scraping the hosts of a
 * {@link LyingPortal} for {@code seconds} on many threads ({@code apps.LyingHostsApp}): the names
 * {@code h0.lying.test}... all lead to the portal through a hosts file of the run's own.
 */
public final class LyingHostsScrape {

    private LyingHostsScrape() {
    }

    public static ChildJvm.Result run(LyingPortal portal, String redis, long minSleepMillis, int hosts, int threads, int seconds)
            throws IOException, InterruptedException {
        Path dir = ChildJvm.workDir();
        Path hostsFile = Files.createTempFile(dir, "hosts-", ".txt");
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < hosts; i++) {
            names.append("127.0.0.1 h").append(i).append(".lying.test\n");
        }
        Files.writeString(hostsFile, names);
        Path policy = Files.createTempFile(dir, "policies-", ".properties");
        Files.writeString(policy, "default.min-sleep = " + minSleepMillis + "ms\n"
                + "default.max-sleep = 1s\n"
                + "default.max-attempts = 4\n"
                + "store = " + redis + "\n"
                + "fleet = lying\n"); // the default store-timeout, 50 ms: a stalled link is a timeout
        return new ChildJvm(Jdk.JAVA_17).classpathEntry(TestClasspath.testClasses())
                .withAgent("config=" + policy).jvmArg("-Djdk.net.hosts.file=" + hostsFile)
                .timeout(Duration.ofSeconds(seconds + 90L))
                .main("dev.retryafter.it.apps.LyingHostsApp", Integer.toString(portal.port()), Integer.toString(hosts),
                        Integer.toString(threads), Integer.toString(seconds)).run();
    }
}
