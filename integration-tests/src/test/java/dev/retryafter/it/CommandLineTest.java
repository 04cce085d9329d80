package dev.retryafter.it;

import dev.retryafter.agent.engine.Reason;
import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Inconclusive;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.MinSleepFloor;
import dev.retryafter.it.harness.TestClasspath;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code java -jar retry-after-agent.jar list | attach | status}, run as an operator runs them: a
 * separate process, on the same Java as the JVM it acts on, a JVM started without the agent.
 */
@Execution(ExecutionMode.CONCURRENT)
class CommandLineTest {

    static final Duration PATIENCE = Duration.ofSeconds(60);

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"})
    void listAttachOnceThenStatusShowsTheHosts(Jdk jdk) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 1_000))) {
            ChildJvm.Running app = new ChildJvm(jdk).classpathEntry(TestClasspath.testClasses())
                    .main("dev.retryafter.it.apps.CommandedFetcherApp", portal.baseUrl()).start();
            try {
                String pid = readyPid(app);

                Cli list = Cli.run(jdk, "list");
                assertEquals(0, list.exitCode, list::toString);
                assertTrue(list.stdout.lines().anyMatch(line -> line.matches(pid + " +\\S+ +no +dev\\.retryafter\\.it\\.apps\\.CommandedFetcherApp")),
                        list::toString);

                Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
                Files.writeString(policy, LyingHeadersTest.POLICY);
                Cli attach = Cli.run(jdk, "attach", pid, policy.toString());
                assertEquals(0, attach.exitCode, attach::toString);
                assertTrue(attach.stdout.contains("attached: retry-after-agent 0.1.0-SNAPSHOT is on in " + pid), attach::toString);
                assertEquals(jdk.feature() >= 21, attach.stdout.contains("JEP 451") && attach.stdout.contains("-XX:+EnableDynamicAgentLoading"),
                        attach::toString);

                // Attached again with a policy file: not loaded twice, but pointed at the file (read again here).
                Cli again = awaitCli(jdk, cli -> !cli.stderr.contains("takes no commands yet"), "attach", pid, policy.toString());
                assertEquals(0, again.exitCode, again::toString);
                assertTrue(again.stdout.contains(pid + ": policies now from " + policy + " (from the command line); no setting changed"),
                        again::toString);
                Cli bare = Cli.run(jdk, "attach", pid);
                assertEquals(0, bare.exitCode, bare::toString);
                assertTrue(bare.stdout.contains("already attached"), bare::toString);

                Cli listed = awaitCli(jdk, cli -> marked(cli, pid), "list");
                assertTrue(listed.stdout.lines().anyMatch(line -> line.matches(pid + " +\\S+ +yes 0\\.1\\.0-SNAPSHOT +.*CommandedFetcherApp")),
                        listed::toString);

                Set<String> listening = listeningSockets(pid);
                Cli before = Cli.run(jdk, "status", pid);
                assertEquals(0, before.exitCode, before::toString);
                assertTrue(before.stdout.contains("no MBeans yet"), before::toString);

                app.send("fetch 12");
                assertEquals("FETCHED 1 ok=12 refused=0", app.awaitLine("FETCHED 1 ", PATIENCE), "governed: every refusal retried");
                Inconclusive.unlessRefused(portal.stats().refusals, portal.stats()::toString);
                MinSleepFloor.assertKept(portal.stats().shortestGapAfterAnyRefusalMillis, LyingHeadersTest.MIN_SLEEP, portal.stats()::toString);

                String requests = Long.toString(portal.stats().requests);
                String refusals = Long.toString(portal.stats().refusals);
                String hostLine = awaitHostLine(jdk, pid, "127.0.0.1:" + portal.port(), requests);
                String[] columns = hostLine.trim().split(" +");
                assertEquals(requests, columns[2], hostLine);
                assertEquals(refusals, columns[3], hostLine);
                // The refusals were waited out: what for, as the engine named it (a refusal's reason, or the pace).
                Reason.valueOf(columns[7]);
                assertEquals(listening, listeningSockets(pid), "status left nothing listening in the JVM it read");

                app.send("exit");
                ChildJvm.Result result = app.finish();
                assertEquals(0, result.exitCode, result::toString);
                assertEquals(1, result.stderr.lines().filter(line -> line.contains("retry-after-agent - on; policies from")).count(),
                        () -> "loaded once\n" + result);
                assertFalse(result.stderr.contains("second attach"), result::toString);
                assertEquals(jdk.feature() >= 21 ? 1 : 0, result.stderr.lines().filter(line -> line.contains("agent has been loaded dynamically")).count(),
                        () -> "attach loaded it; status loads nothing\n" + result);
            } finally {
                app.process.destroyForcibly();
            }
        }
    }

    /**
     * Each steering verb against a running scraper with the agent, and what it changed: the mode and the
     * switch as status shows them, a held host's next request let go, a host's knowledge dropped, a new
     * policy file applied (its observe mode lets the refusals through), a setting's file and line, a
     * broken file refused with the policy in force kept. Nothing is loaded and nothing is left listening.
     */
    @org.junit.jupiter.api.Test
    void eachVerbChangesWhatItSays() throws Exception {
        Jdk jdk = Jdk.JAVA_17;
        // Two requests per 90 s, and a truthful header: the third is told to wait ~90 s, past max-sleep, so the host is held.
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.TRUTHFUL, 2, 90_000))) {
            String host = "127.0.0.1:" + portal.port();
            Path policy = Files.createTempFile(ChildJvm.workDir(), "policies-", ".properties");
            Files.writeString(policy, "# the portal of this test\n"
                    + "policy.portal.hosts = " + host + "\n"
                    + "policy.portal.category = truthful\n"
                    + "policy.portal.max-sleep = 3500ms\n"
                    + "policy.portal.min-sleep = 200ms\n");
            ChildJvm.Running app = new ChildJvm(jdk).classpathEntry(TestClasspath.testClasses()).withAgent(policy.toString())
                    .main("dev.retryafter.it.apps.CommandedFetcherApp", portal.baseUrl()).start();
            try {
                String pid = readyPid(app);
                Set<String> listening = listeningSockets(pid);

                Cli governing = awaitCli(jdk, cli -> !cli.stderr.contains("takes no commands yet"), "policy", pid, host);
                assertEquals(0, governing.exitCode, governing::toString);
                assertTrue(governing.stdout.startsWith(host + " falls under policy portal; policies from " + policy), governing::toString);
                assertTrue(governing.stdout.lines().anyMatch(line -> line.matches(" +max-sleep +3500ms +" + Pattern.quote(policy + ":4"))),
                        governing::toString);
                assertTrue(governing.stdout.lines().anyMatch(line -> line.matches(" +max-attempts +5 +built-in default")), governing::toString);
                Cli every = Cli.run(jdk, "policy", pid);
                assertEquals(0, every.exitCode, every::toString);
                assertTrue(every.stdout.contains("policy portal:") && every.stdout.contains("default (every host no policy names):"),
                        every::toString);

                // Held: the third request is failed fast, and so is a fourth, which never reaches the portal.
                app.send("fetch 3");
                String held = app.awaitLine("FETCHED 1 ", PATIENCE);
                Inconclusive.unlessRefused(portal.stats().refusals, portal.stats()::toString);
                assertEquals("FETCHED 1 ok=2 refused=0 failed=1", held, portal.stats()::toString);
                long seen = portal.stats().requests;
                app.send("fetch 1");
                assertEquals("FETCHED 2 ok=0 refused=0 failed=1", app.awaitLine("FETCHED 2 ", PATIENCE));
                assertEquals(seen, portal.stats().requests, "held: the request never reached the portal");

                // Why: the wait the truthful header's refusal took, by its reason's name and words, the hold, the decision.
                Cli why = Cli.run(jdk, "why", pid, host);
                assertEquals(0, why.exitCode, why::toString);
                assertTrue(why.stdout.startsWith(host + " (policy portal), as of "), why::toString);
                assertTrue(why.stdout.lines().anyMatch(line -> line.matches(" +\\d+\\.\\d s  HEADER_BEYOND_CEILING +truthful header beyond max-sleep.*")),
                        why::toString);
                assertTrue(why.stdout.contains("  category: truthful") && why.stdout.contains("; held now, until ")
                        && why.stdout.contains("  last refusal, "), why::toString);
                Cli whyNot = Cli.run(jdk, "why", pid, "127.0.0.1:1");
                assertEquals(1, whyNot.exitCode, whyNot::toString);
                assertTrue(whyNot.stderr.contains("127.0.0.1:1 is not tracked (tracked: " + host + ")"), whyNot::toString);

                Cli release = Cli.run(jdk, "release", pid, host);
                assertEquals(0, release.exitCode, release::toString);
                assertEquals(pid + ": " + host + " released from its hold: its next request goes (what was learned of it stays)\n",
                        release.stdout, release::toString);
                app.send("fetch 1");
                app.awaitLine("FETCHED 3 ", PATIENCE);
                long afterRelease = portal.stats().requests;
                assertTrue(afterRelease > seen, () -> "released: the next request went to the portal (and may have been tried again"
                        + " before the host was held anew)\n" + portal.stats());

                // Held by hand (the portal's owner asked for a pause): requests fail fast and never reach it; release lifts it.
                Cli hold = Cli.run(jdk, "hold", pid, host, "10m");
                assertEquals(0, hold.exitCode, hold::toString);
                assertTrue(hold.stdout.startsWith(pid + ": " + host + " held until ") && hold.stdout.contains("its requests fail fast until then"),
                        hold::toString);
                long beforeHold = portal.stats().requests;
                app.send("fetch 1");
                assertEquals("FETCHED 4 ok=0 refused=0 failed=1", app.awaitLine("FETCHED 4 ", PATIENCE));
                assertEquals(beforeHold, portal.stats().requests, "held by hand: the request never reached the portal");
                Cli unreadable = Cli.run(jdk, "hold", pid, host, "2d");
                assertEquals(1, unreadable.exitCode, unreadable::toString);
                assertTrue(unreadable.stderr.contains("'2d' is not a duration") && unreadable.stderr.contains("nothing changed"),
                        unreadable::toString);
                Cli tooLong = Cli.run(jdk, "hold", pid, host, "25h");
                assertEquals(1, tooLong.exitCode, tooLong::toString);
                assertTrue(tooLong.stderr.contains("give one from 1s to 24h"), tooLong::toString);
                Cli unheld = Cli.run(jdk, "release", pid, host);
                assertEquals(0, unheld.exitCode, unheld::toString);
                assertTrue(unheld.stdout.contains(" released from its hold"), unheld::toString);

                Cli status = awaitCli(jdk, cli -> cli.stdout.contains("\n" + host + " "), "status", pid);
                assertTrue(status.stdout.contains(": mode enforce, enabled, policies from " + policy), status::toString);
                assertTrue(status.stdout.contains("(why " + pid + " HOST: "), "the table points at why: " + status);
                Cli forget = Cli.run(jdk, "forget", pid, host);
                assertEquals(0, forget.exitCode, forget::toString);
                assertTrue(forget.stdout.startsWith(pid + ": " + host + " forgotten"), forget::toString);
                Cli forgotten = awaitCli(jdk, cli -> !cli.stdout.contains("\n" + host + " "), "status", pid);
                assertTrue(forgotten.stdout.contains(", 0 hosts tracked") && forgotten.stdout.contains("(no host tracked)"), forgotten::toString);
                Cli again = Cli.run(jdk, "forget", pid, host);
                assertEquals(1, again.exitCode, again::toString);
                assertTrue(again.stderr.contains(host + " is not tracked (no host is tracked); nothing changed"), again::toString);

                Cli observe = Cli.run(jdk, "mode", pid, "observe");
                assertEquals(0, observe.exitCode, observe::toString);
                assertEquals(pid + ": mode enforce -> observe: new requests are observed and left alone\n", observe.stdout, observe::toString);
                awaitCli(jdk, cli -> cli.stdout.contains(": mode observe, enabled,"), "status", pid);
                Cli same = Cli.run(jdk, "mode", pid, "observe");
                assertEquals(0, same.exitCode, same::toString);
                assertTrue(same.stdout.contains("mode already observe; nothing changed"), same::toString);
                Cli modeOrigin = Cli.run(jdk, "policy", pid, host);
                assertTrue(modeOrigin.stdout.lines().anyMatch(line -> line.matches(" +mode +observe +the agent's mode: switched from the command line at .*")),
                        modeOrigin::toString);
                assertEquals(0, Cli.run(jdk, "mode", pid, "enforce").exitCode);
                awaitCli(jdk, cli -> cli.stdout.contains(": mode enforce, enabled,"), "status", pid);

                Cli disable = Cli.run(jdk, "disable", pid);
                assertEquals(0, disable.exitCode, disable::toString);
                assertTrue(disable.stdout.startsWith(pid + ": disabled from the command line: new requests run as if the agent were not there"),
                        disable::toString);
                awaitCli(jdk, cli -> cli.stdout.contains(": mode enforce, DISABLED,"), "status", pid);
                Cli enable = Cli.run(jdk, "enable", pid);
                assertEquals(0, enable.exitCode, enable::toString);
                awaitCli(jdk, cli -> cli.stdout.contains(": mode enforce, enabled,"), "status", pid);

                // A new file whose policy observes the portal: its refusal now reaches the application, where enforce held it.
                Path observing = Files.createTempFile(ChildJvm.workDir(), "observing-", ".properties");
                Files.writeString(observing, Files.readString(policy) + "policy.portal.mode = observe\n");
                Cli reload = Cli.run(jdk, "reload", pid, observing.toString());
                assertEquals(0, reload.exitCode, reload::toString);
                assertEquals(pid + ": policies now from " + observing + " (was " + policy + ") (from the command line): policy.portal.mode = observe added\n",
                        reload.stdout, reload::toString);
                long refusedBefore = portal.stats().refusals;
                app.send("fetch 1");
                String observed = app.awaitLine("FETCHED 5 ", PATIENCE);
                Inconclusive.unlessRefused(portal.stats().refusals - refusedBefore, portal.stats()::toString);
                assertEquals("FETCHED 5 ok=0 refused=1", observed, "observed: the refusal reached the application\n" + portal.stats());
                Cli observedPolicy = Cli.run(jdk, "policy", pid, host);
                assertTrue(observedPolicy.stdout.lines().anyMatch(line -> line.matches(" +mode +observe +" + Pattern.quote(observing + ":6"))),
                        observedPolicy::toString);
                awaitCli(jdk, cli -> cli.stdout.contains("policies from " + observing), "status", pid);

                Cli reread = Cli.run(jdk, "reload", pid);
                assertEquals(0, reread.exitCode, reread::toString);
                assertEquals(pid + ": policy file " + observing + " re-read (from the command line): no setting changed\n", reread.stdout,
                        reread::toString);
                Path broken = Files.createTempFile(ChildJvm.workDir(), "broken-", ".properties");
                Files.writeString(broken, "policy.portal.hosts = " + host + "\npolicy.portal.max-sleeep = 2s\n");
                Cli refused = Cli.run(jdk, "reload", pid, broken.toString());
                assertEquals(1, refused.exitCode, refused::toString);
                assertTrue(refused.stderr.contains(broken + ":2: policy.portal.max-sleeep: unknown key")
                        && refused.stderr.contains("the policy in force stays"), refused::toString);
                Cli kept = Cli.run(jdk, "policy", pid, host);
                assertTrue(kept.stdout.contains("policies from " + observing), () -> "the policy in force stayed\n" + kept);

                Cli sideways = Cli.run(jdk, "mode", pid, "sideways");
                assertEquals(2, sideways.exitCode, sideways::toString);
                Cli nowhere = Cli.run(jdk, "release", pid, "127.0.0.1:1");
                assertEquals(1, nowhere.exitCode, nowhere::toString);
                assertTrue(nowhere.stderr.contains("127.0.0.1:1 is not tracked"), nowhere::toString);

                assertEquals(listening, listeningSockets(pid), "the commands left nothing listening in the JVM they steered");
                app.send("exit");
                ChildJvm.Result result = app.finish();
                assertEquals(0, result.exitCode, result::toString);
                for (String line : List.of(host + ": hold released from the command line", host + ": forgotten from the command line",
                        host + ": held until ",
                        "mode enforce -> observe, from the command line", "mode observe -> enforce, from the command line",
                        "disabled from the command line", "enabled from the command line", "policies now from " + observing)) {
                    assertTrue(result.stderr.contains(line), () -> "the log says who changed what: " + line + "\n" + result);
                }
                assertFalse(result.stderr.contains("agent has been loaded dynamically"), () -> "nothing was loaded\n" + result);
            } finally {
                app.process.destroyForcibly();
            }
        }
    }

    /**
     * {@code attach} with a broken policy file says what is broken (file, line, key), not only that the
     * log says why; the agent governs on its defaults, and {@code attach} again points it at a good file.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Jdk.class, names = {"JAVA_17", "JAVA_25"})
    void attachRelaysABrokenPolicyAndAttachAgainPointsAtAGoodOne(Jdk jdk) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 4, 1_000))) {
            ChildJvm child = new ChildJvm(jdk).classpathEntry(TestClasspath.testClasses());
            if (jdk.feature() >= 21) {
                child.jvmArg("-XX:+EnableDynamicAgentLoading");
            }
            ChildJvm.Running app = child.main("dev.retryafter.it.apps.CommandedFetcherApp", portal.baseUrl()).start();
            try {
                String pid = readyPid(app);
                Path broken = Files.createTempFile(ChildJvm.workDir(), "broken-", ".properties");
                Files.writeString(broken, "default.min-sleep = 300ms\ndefault.max-sleeep = 2s\n");
                Cli attach = Cli.run(jdk, "attach", pid, broken.toString());
                assertEquals(1, attach.exitCode, attach::toString);
                assertTrue(attach.stderr.contains("attached: retry-after-agent 0.1.0-SNAPSHOT is on in " + pid + ", but not as asked: "
                        + broken + ":2: default.max-sleeep: unknown key; did you mean default.max-sleep?"), attach::toString);
                assertTrue(attach.stderr.contains("the agent governs every host on its built-in defaults"), attach::toString);

                Path good = Files.createTempFile(ChildJvm.workDir(), "good-", ".properties");
                Files.writeString(good, LyingHeadersTest.POLICY);
                Cli again = awaitCli(jdk, cli -> !cli.stderr.contains("takes no commands yet"), "attach", pid, good.toString());
                assertEquals(0, again.exitCode, again::toString);
                assertTrue(again.stdout.contains(pid + ": policies now from " + good + " (from the command line): "), again::toString);
                app.send("fetch 12");
                assertEquals("FETCHED 1 ok=12 refused=0", app.awaitLine("FETCHED 1 ", PATIENCE), "governed: every refusal retried");
                Inconclusive.unlessRefused(portal.stats().refusals, portal.stats()::toString);
                MinSleepFloor.assertKept(portal.stats().shortestGapAfterAnyRefusalMillis, LyingHeadersTest.MIN_SLEEP, portal.stats()::toString);
                app.send("exit");
                ChildJvm.Result result = app.finish();
                assertEquals(0, result.exitCode, result::toString);
                assertEquals(1, result.stderr.lines().filter(line -> line.contains("retry-after-agent - on; policies from")).count(),
                        () -> "loaded once\n" + result);
            } finally {
                app.process.destroyForcibly();
            }
        }
    }

    /**
     * The pid an app's READY line names. Read as its first digits: the JVM's {@code -verbose:class} output may be written
     * into the middle of that line (seen: "READY 18312[2.489s][info][class,load] ...").
     */
    private static String readyPid(ChildJvm.Running app) throws Exception {
        String line = app.awaitLine("READY", PATIENCE);
        java.util.regex.Matcher pid = Pattern.compile("READY (\\d+)").matcher(line);
        assertTrue(pid.lookingAt(), line);
        return pid.group(1);
    }

    /**
     * {@code list} with five JVMs of Java 8 to 25 running without the agent and two with it: each is
     * listed with its Java version, the two marked, and none of the five attached to (no attach
     * socket) or given a class of the agent (their own class-load output).
     */
    @org.junit.jupiter.api.Test
    void listAttachesToNoneAndMarksTheAgents() throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.ALWAYS_ZERO, 100, 1_000))) {
            List<ChildJvm.Running> plain = new ArrayList<>();
            List<ChildJvm.Running> withAgent = new ArrayList<>();
            try {
                for (Jdk jdk : List.of(Jdk.JAVA_11, Jdk.JAVA_17, Jdk.JAVA_17, Jdk.JAVA_21, Jdk.JAVA_25)) {
                    plain.add(new ChildJvm(jdk).classpathEntry(TestClasspath.testClasses()).jvmArg("-verbose:class")
                            .main("dev.retryafter.it.apps.CommandedFetcherApp", portal.baseUrl()).start());
                }
                withAgent.add(new ChildJvm(Jdk.JAVA_17).classpathEntry(TestClasspath.testClasses()).withAgent(null)
                        .main("dev.retryafter.it.apps.CommandedFetcherApp", portal.baseUrl()).start());
                withAgent.add(new ChildJvm(Jdk.JAVA_8).classpathEntry(TestClasspath.testClasses()).withAgent(null)
                        .classpath(name -> name.startsWith("httpclient-4") || name.startsWith("httpcore-4")
                                || name.startsWith("commons-logging") || name.startsWith("commons-codec"))
                        .main("dev.retryafter.it.apps.java8.AttachLaterApache4App", portal.baseUrl(), "0").start());
                List<String> plainPids = new ArrayList<>();
                for (ChildJvm.Running app : plain) {
                    plainPids.add(readyPid(app));
                }
                List<String> agentPids = new ArrayList<>();
                for (ChildJvm.Running app : withAgent) {
                    agentPids.add(readyPid(app));
                }

                Cli list = awaitCli(Jdk.JAVA_17, cli -> agentPids.stream().allMatch(pid -> marked(cli, pid)), "list");
                assertEquals(0, list.exitCode, list::toString);
                assertEquals("", list.stderr, list::toString);
                String[] header = list.stdout.lines().findFirst().orElse("").split(" +");
                assertEquals(List.of("PID", "JAVA", "AGENT", "MAIN"), List.of(header), list::toString);
                for (String pid : plainPids) {
                    assertTrue(list.stdout.lines().anyMatch(line -> line.matches(pid + " +[0-9][0-9._]* +no +dev\\.retryafter\\.it\\.apps\\.CommandedFetcherApp")),
                            () -> pid + " listed, not marked\n" + list);
                }
                assertTrue(list.stdout.lines().anyMatch(line -> line.matches(agentPids.get(1) + " +1\\.8\\.0\\S* +yes 0\\.1\\.0-SNAPSHOT +.*AttachLaterApache4App")),
                        list::toString);
                int agentColumn = list.stdout.lines().findFirst().orElse("").indexOf("AGENT");
                assertTrue(list.stdout.lines().allMatch(line -> line.length() > agentColumn && line.charAt(agentColumn - 1) == ' '
                        && line.charAt(agentColumn) != ' '), () -> "aligned columns\n" + list);

                // The Java 8 agent takes a command too.
                Cli observe = awaitCli(Jdk.JAVA_17, cli -> !cli.stderr.contains("takes no commands yet"), "mode", agentPids.get(1), "observe");
                assertEquals(0, observe.exitCode, observe::toString);
                assertEquals(agentPids.get(1) + ": mode enforce -> observe: new requests are observed and left alone\n", observe.stdout);

                for (int i = 0; i < plain.size(); i++) {
                    assertFalse(Files.exists(Path.of(System.getProperty("java.io.tmpdir"), ".java_pid" + plainPids.get(i))),
                            "no attach socket: list never attached to " + plainPids.get(i));
                    plain.get(i).send("exit");
                    ChildJvm.Result result = plain.get(i).finish();
                    assertEquals(0, result.exitCode, result::toString);
                    assertTrue(result.stdout.contains("CommandedFetcherApp"), () -> "class-load output\n" + result);
                    assertFalse(result.stdout.contains("dev.retryafter.agent") || result.stdout.contains("VMSupport"),
                            () -> "nothing of the agent's, nor of an attach's, was loaded\n" + result);
                }
            } finally {
                for (ChildJvm.Running app : plain) {
                    app.process.destroyForcibly();
                }
                for (ChildJvm.Running app : withAgent) {
                    app.process.destroyForcibly();
                }
            }
        }
    }

    /** Whether {@code list} marks {@code pid} as a JVM the agent is in. */
    static boolean marked(Cli list, String pid) {
        return list.stdout.lines().anyMatch(line -> line.startsWith(pid + " ") && line.contains(" yes "));
    }

    /** Runs the command line until what it says passes {@code done} (a JVM's agent does some things a second after it starts). */
    static Cli awaitCli(Jdk jdk, java.util.function.Predicate<Cli> done, String... args) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            Cli cli = Cli.run(jdk, args);
            if (done.test(cli)) {
                return cli;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("never came: " + String.join(" ", args) + "\n" + cli);
            }
            Thread.sleep(200);
        }
    }

    /** {@code help}, and clear errors for what cannot be done. */
    @org.junit.jupiter.api.Test
    void helpAndClearErrors() throws Exception {
        Cli help = Cli.run(Jdk.JAVA_17, "help");
        assertEquals(0, help.exitCode, help::toString);
        for (String verb : List.of("list", "attach PID [ARGUMENT]", "status PID", "mode PID observe|enforce", "disable PID", "enable PID",
                "release PID HOST", "hold PID HOST DURATION", "forget PID HOST", "reload PID [FILE]", "policy PID [HOST]",
                "why PID HOST", "help")) {
            assertTrue(help.stdout.contains("  " + verb + " "), () -> verb + "\n" + help);
        }
        assertTrue(help.stdout.lines().count() <= 24 && help.stdout.lines().allMatch(line -> line.length() <= 120),
                () -> "one screen\n" + help);
        for (List<String> wrong : List.of(List.of("mode", "1"), List.of("mode", "1", "sideways"), List.of("forget", "1"),
                List.of("release", "1", "a", "b"), List.of("hold", "1", "a"), List.of("why", "1"), List.of("enable"), List.of("list", "1"))) {
            Cli usage = Cli.run(Jdk.JAVA_17, wrong.toArray(new String[0]));
            assertEquals(2, usage.exitCode, () -> wrong + "\n" + usage);
        }
        Cli unknown = Cli.run(Jdk.JAVA_17, "attach", "not-a-pid");
        assertEquals(2, unknown.exitCode, unknown::toString);
        assertTrue(unknown.stderr.contains("'not-a-pid' is not a process id"), unknown::toString);
        Cli gone = Cli.run(Jdk.JAVA_17, "status", "2147483646");
        assertEquals(1, gone.exitCode, gone::toString);
        assertTrue(gone.stderr.contains("no process with pid 2147483646"), gone::toString);
    }

    /** Java 8 has no attach API in its class path: one clear line, not a stack trace. */
    @org.junit.jupiter.api.Test
    void onJava8ItSaysWhatItNeeds() throws Exception {
        Cli old = Cli.run(Jdk.JAVA_8, "list");
        assertEquals(2, old.exitCode, old::toString);
        assertTrue(old.stderr.contains("needs Java 9 or later"), old::toString);
    }

    /**
     * The TCP sockets {@code pid} listens on, as {@code local address:port} in hex: the listeners of
     * /proc/net/tcp and tcp6 whose inodes are among the process's own descriptors.
     */
    private static Set<String> listeningSockets(String pid) throws IOException {
        Path fds = Path.of("/proc", pid, "fd");
        Assumptions.assumeTrue(Files.isDirectory(fds), "no /proc here to read the JVM's sockets from");
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path fd : entries) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // not a socket of this moment
                }
            }
        }
        Set<String> listening = new TreeSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) { // after the heading
                String[] columns = line.trim().split("\\s+");
                if (columns[3].equals("0A") && inodes.contains(columns[9])) { // 0A: LISTEN
                    listening.add(columns[1]);
                }
            }
        }
        return listening;
    }

    /**
     * The status follows the hosts about once a second: asks {@code status} again until the host is
     * there with all its {@code requests}.
     */
    private static String awaitHostLine(Jdk jdk, String pid, String host, String requests) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            Cli status = Cli.run(jdk, "status", pid);
            assertEquals(0, status.exitCode, status::toString);
            for (String line : status.stdout.split("\n")) {
                if (line.startsWith(host + " ") && line.trim().split(" +")[2].equals(requests)) {
                    assertTrue(status.stdout.contains("retry-after-agent 0.1.0-SNAPSHOT in " + pid + ": mode enforce, enabled"),
                            status::toString);
                    assertTrue(status.stdout.contains("HOST") && status.stdout.contains("MOSTLY FOR") && status.stdout.contains("LAST REASON"),
                            status::toString);
                    return line;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("status never showed " + host + " with " + requests + " requests:\n" + status);
            }
            Thread.sleep(200);
        }
    }

    /** One run of the command line. */
    static final class Cli {
        final int exitCode;
        final String stdout;
        final String stderr;

        private Cli(int exitCode, String stdout, String stderr) {
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        static Cli run(Jdk jdk, String... args) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>(List.of(jdk.javaOrSkip().toString(), "-jar", ChildJvm.agentJar().toString()));
            command.addAll(Arrays.asList(args));
            Path dir = Files.createTempDirectory(ChildJvm.workDir(), "cli-");
            Path out = dir.resolve("stdout.txt");
            Path err = dir.resolve("stderr.txt");
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().putAll(jdk.environment());
            Process process = builder.start();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly().waitFor();
                throw new AssertionError("did not finish: " + command);
            }
            return new Cli(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }
}
