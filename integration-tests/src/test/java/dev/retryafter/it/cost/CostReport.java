package dev.retryafter.it.cost;

import dev.retryafter.it.harness.Jdk;

import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Stream;

/** The run as Markdown: where it ran, the targets, then a table per part and how to read them. */
record CostReport(CostSettings settings, ZonedDateTime startedAt, long wallMillis, double loadAtStart, double loadAtEnd,
                  Path agentJar, long agentJarBytes, List<HappyPath.Cell> happy, List<StartUp.Cell> startUp,
                  EngineCost.Result engine, StateFileCost.Result stateFile, List<CostTargets.Target> targets) {

    static final String HAPPY_HEADER = "| client | threads | without (req/s) | with (req/s) | with / without "
            + "| added per request (µs) | client CPU per request, without (µs) | with (µs) | runs the agent governed |";
    static final String START_UP_HEADER = "| JDK | client | start → first response, without (ms) | with (ms) | added (ms) "
            + "| start → main, without (ms) | with (ms) | process, start to exit, without (ms) | with (ms) | added (ms) "
            + "| classes loaded, without | with |";
    /** The header of a table of one more arm against the runs without, {@code %1$s} its name. */
    static final String START_UP_ARM_HEADER = "| JDK | client | start → first response, without (ms) | %1$s (ms) | added (ms) "
            + "| start → main, without (ms) | %1$s (ms) | process, start to exit, without (ms) | %1$s (ms) | added (ms) "
            + "| classes loaded, without | %1$s |";
    static final String FLEET_HEADER = "| client | threads | without (req/s) | with, in memory (req/s) | with, fleet store (req/s) "
            + "| fleet store / without | fleet store / in memory | client CPU per request, fleet store (µs) | runs shared throughout |";
    static final String POPULATION_HEADER = "| population | hosts | requests per host | retained (bytes) | per host (bytes) |";
    static final String STATE_FILE_HEADER = "| state file | hosts | file (bytes) | per host (bytes) | time (ms) | processor time (ms) |";

    String markdown() {
        StringBuilder md = new StringBuilder();
        header(md);
        targets(md);
        happyPath(md);
        startUp(md);
        memory(md);
        stateFile(md);
        legend(md);
        return md.toString();
    }

    private void header(StringBuilder md) {
        md.append("# Benchmark 2: cost of the agent (real time, real JVMs)\n\n");
        line(md, "- Mode %s; run %s; %.1f s wall.", settings.mode(), startedAt.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                wallMillis / 1000.0);
        line(md, "- Machine: %s %s, %d processors; load average %.2f at the start, %.2f at the end.", System.getProperty("os.name"),
                System.getProperty("os.arch"), Runtime.getRuntime().availableProcessors(), loadAtStart, loadAtEnd);
        line(md, "- Benchmark JVM, and the loopback server's on the same JDK: Java %s (%s).", System.getProperty("java.version"),
                System.getProperty("java.runtime.version"));
        for (Jdk jdk : Jdk.all()) {
            line(md, "- Child %s: %s, at `%s`.", jdk, childVersion(jdk), jdk.java());
        }
        line(md, "- Agent jar: `%s`, %,d bytes (%.2f MiB); copied at the start, and every child JVM run from the copy.\n",
                agentJar, agentJarBytes, agentJarBytes / 1048576.0);
    }

    /** The version a JDK's children reported, flagged when it is not the release the row is named for. */
    private String childVersion(Jdk jdk) {
        if (!jdk.isAvailable()) {
            return "**JDK missing**: its rows were not measured";
        }
        String version = startUp.stream().filter(c -> c.jdk() == jdk && c.measured()).map(StartUp.Cell::version)
                .findFirst().orElse(null);
        if (version == null) {
            return "no child ran on it";
        }
        int expected = Integer.parseInt(jdk.name().substring("JAVA_".length()));
        boolean matches = feature(version) == expected;
        return "`" + version + "`" + (matches ? "" : " — **not Java " + expected + "**: set the JDK's home property");
    }

    /** "17.0.15+6" is 17; Java 8 names itself "1.8.0_504-...". */
    static int feature(String version) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(?:1\\.)?(\\d+)").matcher(version);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private void targets(StringBuilder md) {
        md.append("## Targets\n\n");
        for (CostTargets.Target t : targets) {
            line(md, "- **%s** %s: %s.", t.status().name().replace('_', ' '), t.name(), t.figure());
            for (String miss : t.misses()) {
                line(md, "  - %s", miss);
            }
        }
        md.append('\n');
    }

    private void happyPath(StringBuilder md) {
        md.append("## Happy path: throughput\n\n");
        line(md, "Child JVMs on %s with `%s`; the agent's argument `%s`. %d round(s), each with a new JVM per arm; each "
                        + "sends unmeasured until its JIT has spent under %d ms compiling in the last second (%s), alone on "
                        + "the machine, the other arms' JVMs at rest. Then the arms take turns, a slice each: laps unmeasured until "
                        + "no JIT has compiled over %d ms in a slice for %d laps running, then %d measured slices of %.2f s "
                        + "each, the order reversed from lap to lap, so each arm meets the machine "
                        + "as the others do. Figures are medians over the rounds, with the lowest and highest in brackets; "
                        + "*with / without* and *added* are taken round by round, each against the other arm's slices of "
                        + "that round; without the agent starts first in odd rounds and last in even ones.\n",
                settings.loadJdk(), String.join(" ", HappyPath.JVM_ARGS), CostSettings.LOAD_AGENT_ARGUMENT, settings.rounds(),
                HappyPathLoad.JIT_QUIET_BUDGET_MILLIS, warmUps(), HappyPathLoad.JIT_QUIET_BUDGET_MILLIS, HappyPath.QUIET_LAPS,
                settings.slices(), settings.sliceSeconds());
        md.append(HAPPY_HEADER).append('\n');
        md.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (HappyPath.Cell c : happy) {
            if (!c.measured()) {
                line(md, "| %s | %d | JDK missing | | | | | | |", c.client(), c.threads());
                continue;
            }
            long governed = c.with().stream().filter(HappyPath.Run::governedAll).count();
            line(md, "| %s | %d | %s | %s | %s | %s | %s | %s | %d of %d |", c.client(), c.threads(),
                    spread(c.perSecond(c.without()), "%,.0f", 1), spread(c.perSecond(c.with()), "%,.0f", 1),
                    spread(c.ratios(), "%.1f%%", 100), spread(c.addedMicros(), "%+.1f", 1),
                    spread(c.cpuMicros(c.without()), "%.0f", 1), spread(c.cpuMicros(c.with()), "%.0f", 1),
                    governed, c.with().size());
        }
        fleetStore(md);
        if (engine.measured()) {
            line(md, "\nFor scale, the engine alone (no advice, no client; one thread, one host, the system clock) "
                    + "takes %.2f µs a request let through: the part of the agent's cost the table cannot resolve from "
                    + "the noise between runs.", engine.nanosPerRequest() / 1000);
        }
        md.append('\n');
    }

    /** The cell run a third time each round, beside its run with the agent, with the fleet store on Redis. */
    private void fleetStore(StringBuilder md) {
        HappyPath.Cell c = happy.stream().filter(HappyPath.Cell::fleetMeasured).findFirst().orElse(null);
        if (c == null) {
            line(md, "\nWith the fleet store: not measured (no redis-server, or the JDK missing).");
            return;
        }
        line(md, "\nWith the fleet store: the agent's argument `%s`, a redis-server of the benchmark's own on loopback, "
                + "the host never refused (so it is never paced and costs no round trip; the fleet's counts go with "
                + "the store's background refresh). A third arm of the cell's rounds, taking its turns beside the other two.\n",
                CostSettings.fleetAgentArgument("redis://127.0.0.1:PORT"));
        md.append(FLEET_HEADER).append('\n');
        md.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        long shared = c.withFleet().stream().filter(run -> run.shared() && run.governedAll()).count();
        line(md, "| %s | %d | %s | %s | %s | %s | %s | %s | %d of %d |", c.client(), c.threads(),
                spread(c.perSecond(c.without()), "%,.0f", 1), spread(c.perSecond(c.with()), "%,.0f", 1),
                spread(c.perSecond(c.withFleet()), "%,.0f", 1), spread(c.fleetRatios(), "%.1f%%", 100),
                spread(c.fleetAgainstMemory(), "%.1f%%", 100), spread(c.cpuMicros(c.withFleet()), "%.0f", 1),
                shared, c.withFleet().size());
    }

    /** The warm-ups' bounds and medians per arm, and how many ran into the upper bound with the JIT still busy. */
    private String warmUps() {
        List<HappyPath.Run> without = happy.stream().flatMap(c -> c.without().stream()).toList();
        List<HappyPath.Run> with = happy.stream().flatMap(c -> c.with().stream()).toList();
        long capped = Stream.concat(without.stream(), with.stream())
                .filter(run -> run.warmUpMillis() >= 1000 * settings.mostWarmUpSeconds()).count();
        return String.format(Locale.ROOT, "at least %.1f s, at most %.1f s; median %.1f s without the agent, %.1f s with; "
                        + "%d of %d runs stopped at the most", settings.leastWarmUpSeconds(), settings.mostWarmUpSeconds(),
                Stats.median(without.stream().map(run -> run.warmUpMillis() / 1000.0).toList()),
                Stats.median(with.stream().map(run -> run.warmUpMillis() / 1000.0).toList()), capped,
                without.size() + with.size());
    }

    private void startUp(StringBuilder md) {
        md.append("## Start-up\n\n");
        line(md, "A one-request program per client; the agent as deployed, with no policy (every host on the defaults), "
                        + "on a machine where it has started before: its class cache holds the client classes it changed, "
                        + "filled by the unmeasured runs. %d measured run(s) per JDK, client and arm, in turn without, with, "
                        + "off and at a first start (the tables below)%s; medians.\n",
                settings.startUpRuns(), settings.startUpWarmUps() > 0
                        ? ", after " + settings.startUpWarmUps() + " unmeasured run(s) of each to warm the OS file cache" : "");
        startUpTable(md, "with", StartUp.Cell::with);
        line(md, "First start: the agent with its class cache empty, as on a machine's first run of a JDK and client; "
                + "Byte Buddy changes the client classes, and the cache keeps them for the next start.\n");
        startUpTable(md, "first start", StartUp.Cell::first);
        line(md, "Switched off: the same program with the agent and `%s`, in the same rotation. "
                + "The agent decides it is off before it loads anything of its own beyond the switch, so what is "
                + "added is about what opening the jar costs the JVM.\n", StartUp.OFF_ARGUMENT);
        startUpTable(md, "off", StartUp.Cell::off);
    }

    /** One arm's runs against the runs without the agent. */
    private void startUpTable(StringBuilder md, String arm, Function<StartUp.Cell, List<StartUp.Run>> runs) {
        md.append(String.format(Locale.ROOT, START_UP_ARM_HEADER, arm)).append('\n');
        md.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (StartUp.Cell c : startUp) {
            if (!c.measured()) {
                line(md, "| %s | %s | JDK missing | | | | | | | | | |", c.jdk(), c.client());
                continue;
            }
            List<StartUp.Run> with = runs.apply(c);
            line(md, "| %s | %s | %.0f | %.0f | %+.0f | %.0f | %.0f | %.0f | %.0f | %+.0f | %.0f | %.0f |", c.jdk(), c.client(),
                    c.median(c.without(), StartUp.Run::toFirstResponseMillis), c.median(with, StartUp.Run::toFirstResponseMillis),
                    c.added(with, StartUp.Run::toFirstResponseMillis),
                    c.median(c.without(), StartUp.Run::toMainMillis), c.median(with, StartUp.Run::toMainMillis),
                    c.median(c.without(), StartUp.Run::wallMillis), c.median(with, StartUp.Run::wallMillis),
                    c.added(with, StartUp.Run::wallMillis),
                    c.median(c.without(), StartUp.Run::classes), c.median(with, StartUp.Run::classes));
        }
        md.append('\n');
    }

    private void memory(StringBuilder md) {
        md.append("## Memory\n\n");
        if (!engine.measured()) {
            line(md, "%s missing: not measured.\n", engine.jdk());
            return;
        }
        line(md, "One child JVM on %s with `%s`; the engine from the agent jar on its class path, default policies, "
                + "virtual time. Retained heap: heap in use after full collections, with a fresh engine and with its hosts.\n",
                engine.jdk(), String.join(" ", EngineCost.JVM_ARGS));
        md.append(POPULATION_HEADER).append('\n');
        md.append("|---|--:|--:|--:|--:|\n");
        for (EngineCost.Population p : engine.populations()) {
            line(md, "| %s | %,d | %,d | %,d | %,.0f |", populationLabel(p), p.hosts(), p.requestsPerHost(), p.bytes(),
                    p.bytesPerHost());
        }
        line(md, "\nLong run on one host, one request in %d refused first:\n", settings.refuseEvery());
        md.append("| requests | heap in use (bytes) | since the first request | since the first checkpoint |\n");
        md.append("|--:|--:|--:|--:|\n");
        List<EngineCost.Checkpoint> checkpoints = engine.checkpoints();
        for (EngineCost.Checkpoint c : checkpoints) {
            line(md, "| %,d | %,d | %+,d | %s |", c.calls(), c.usedBytes(), c.usedBytes() - checkpoints.get(0).usedBytes(),
                    c.calls() < checkpoints.get(1).calls() ? "—"
                            : String.format(Locale.ROOT, "%+,d", c.usedBytes() - checkpoints.get(1).usedBytes()));
        }
        md.append('\n');
    }

    private void stateFile(StringBuilder md) {
        md.append("## State file\n\n");
        line(md, "A `FileKnowledgeStore` in the benchmark JVM, saved to a file on %s and opened from it. Every host was "
                        + "refused at least once (a pace, a ceiling, one to %d finished streaks), one in %d is held; "
                        + "%d unmeasured runs, then %d measured: medians, the lowest and highest in brackets.\n",
                stateFile.fileSystem(), StateFileCost.MOST_STREAKS, StateFileCost.HELD_EVERY, StateFileCost.WARM_UPS,
                stateFile.save().millis().size());
        md.append(STATE_FILE_HEADER).append('\n');
        md.append("|---|--:|--:|--:|--:|--:|\n");
        stateFileRow(md, "save, no file yet (a scraper's first)", stateFile.saveFresh());
        stateFileRow(md, "**save over the last save's file**: read, merged, written, forced, renamed", stateFile.save());
        stateFileRow(md, "read at start, every host back (" + String.format(Locale.ROOT, "%,d", stateFile.hostsReadBack()) + ")",
                stateFile.read());
        md.append('\n');
    }

    private void stateFileRow(StringBuilder md, String label, StateFileCost.Step step) {
        line(md, "| %s | %,d | %,d | %,.0f | %s | %s |", label, stateFile.hosts(), stateFile.bytes(), stateFile.bytesPerHost(),
                spread(step.millis(), "%.1f", 1), spread(step.cpuMillis(), "%.1f", 1));
    }

    private String populationLabel(EngineCost.Population p) {
        switch (p.name()) {
            case "admitted":
                return "admitted: each host answered 200";
            case "refused":
                return "refused: each host refused once (429, Retry-After: 0), then 200";
            case "mixed":
                return "**mixed: one host in " + settings.refusedEvery() + " refused once** (the target's)";
            case "busy":
                return "busy: one request in " + settings.refuseEvery() + " refused, histories full";
            default:
                return p.name();
        }
    }

    private void legend(StringBuilder md) {
        md.append("## Reading the figures\n\n");
        md.append("- The loopback server is the JDK's `com.sun.net.httpserver.HttpServer` on 127.0.0.1, in a JVM of its own "
                + "started once for the whole run (with `-Dsun.net.httpserver.nodelay=true`: without it every response "
                + "waits about 40 ms on a delayed ACK), 4 handler threads, a " + LoopbackServer.BODY.length + "-byte body, "
                + "keep-alive. It shares the machine's processors with the client, so throughput is of the pair.\n");
        md.append("- *with / without*: how much of the throughput the agent keeps. *added per request*: how much longer "
                + "each request took with the agent, from throughput (threads / requests a second); it can read below "
                + "zero when the noise between two runs is larger than the cost.\n");
        md.append("- *client CPU per request*: the client JVM's processor time in its measured slices (its JIT and "
                + "collector included) over the requests in them.\n");
        md.append("- The warm-up waits for the JIT, not a fixed time. While this benchmark was being written, a fixed "
                + "two seconds had runs measured while the JIT was still compiling on the other processor: a client "
                + "then spent some half as much processor time again per request, yet often answered faster (probably "
                + "because the processors then never went idle between a request and its response), and the agent, "
                + "with more to compile, came out ahead by up to 12%. Those figures measured the JIT, not the agent.\n");
        md.append("- *jdk, 4 threads*: measured in whole runs one after another, the JDK client at 4 threads read "
                + "anywhere from 71% to 131% from one round to the next, with and without the agent alike. Taking turns "
                + "in slices, three rounds by hand on a quiet machine read 98.3% to 103.4%, and with the agent in both "
                + "arms 100.4% to 102.9%: what is left between rounds is what differs from one JVM to the next, and "
                + "whatever else shares the machine, which does not slow every arm alike.\n");
        md.append("- *runs the agent governed*: runs in which the agent's exit report counted every request the client "
                + "made, warm-up included; a run short of that would not have measured the agent.\n");
        md.append("- *start → first response* and *start → main* are read inside the child: the JVM's start time "
                + "(`RuntimeMXBean.getStartTime()`, taken as the JVM initialises, before any agent runs) against the "
                + "moment main began and the moment the first response was in. Without the agent, start → main is a "
                + "few ms; with it, the difference is the agent's premain. *process, start to exit* is the parent's "
                + "clock around the whole child process: the launcher, JVM exit and the agent's exit report included. "
                + "For `jdk` it is some 300 ms longer than the first response even without the agent: the JVM waits "
                + "that long at exit for the HttpClient's selector thread, blocked in native code.\n");
        md.append("- *classes loaded*: loaded by the time the program ends; the difference is what the agent brings "
                + "(its own classes, and Byte Buddy's, which rewrites the client's classes as they load).\n");
        md.append("- A *tracked host* is one with state in the engine's store. Its history of recent successes grows "
                + "with its traffic, up to 512 timestamps, so a busy host costs more than a quiet one; the target is "
                + "judged on the mixed population, the busy one shows the bound.\n");
        md.append("- The *state file* is saved at exit and every `state-interval` (a minute by default), each time over "
                + "the file the last save wrote, which it reads and merges first, so another JVM's hosts are kept: that row "
                + "is the recurring cost. The save runs on the agent's own thread, never on a request's; *forced* is "
                + "`fsync`, whose cost is the disk's. *processor time* is the benchmark thread's own, which other work on "
                + "the machine disturbs less than the time; what *time* adds to it is waiting: for the disk, or for a processor.\n");
        md.append("- The load average in the header is the whole machine's: when other work ran alongside, every "
                + "figure is noisier, the alternating order spreading the disturbance over the arms.\n");
    }

    /** The median, and the range in brackets when there is more than one value. */
    private static String spread(List<Double> values, String pattern, double scale) {
        String median = String.format(Locale.ROOT, pattern, scale * Stats.median(values));
        if (values.size() < 2) {
            return median;
        }
        return String.format(Locale.ROOT, "%s (%s to %s)", median, String.format(Locale.ROOT, pattern, scale * Stats.min(values)),
                String.format(Locale.ROOT, pattern, scale * Stats.max(values)));
    }

    private static void line(StringBuilder md, String pattern, Object... args) {
        md.append(String.format(Locale.ROOT, pattern, args)).append('\n');
    }
}
