package dev.retryafter.demo;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.demo.portal.PortalStats;
import dev.retryafter.demo.scraper.ScraperResult;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One portal scraped once, by the legacy scraper in a JVM of its own, with or without the agent. */
public final class DemoRun {

    /** What the demo table shows for one portal and one mode. */
    public static final class Row {
        public final Behaviour behaviour;
        public final boolean withAgent;
        public final ScraperResult scraper;
        public final PortalStats portal;
        /** From the agent's report; null without the agent. */
        public final AgentReport.Host agent;
        public final Path log;

        Row(Behaviour behaviour, boolean withAgent, ScraperResult scraper, PortalStats portal, AgentReport.Host agent, Path log) {
            this.behaviour = behaviour;
            this.withAgent = withAgent;
            this.scraper = scraper;
            this.portal = portal;
            this.agent = agent;
            this.log = log;
        }
    }

    private DemoRun() {
    }

    static Row run(DemoOptions options, Behaviour behaviour, boolean withAgent) throws IOException, InterruptedException {
        String name = behaviour.label() + (withAgent ? "-with-agent" : "-without-agent") + "-" + options.client;
        Path log = options.workDir.resolve(name + ".log");
        Path report = options.workDir.resolve(name + ".json");
        Files.deleteIfExists(report);
        try (PortalServer portal = new PortalServer(DemoPortals.create(behaviour, options.records))) {
            List<String> command = new ArrayList<>();
            command.add(options.java.toString());
            if (withAgent) {
                command.add("-javaagent:" + options.agentJar.toAbsolutePath() + "=config=" + options.policies.toAbsolutePath()
                        + ",report=" + report.toAbsolutePath());
            }
            command.addAll(List.of("-cp", options.classpath, "dev.retryafter.demo.scraper.LegacyScraper",
                    "--client", options.client, "--url", portal.baseUrl(), "--records", Integer.toString(options.records),
                    "--threads", Integer.toString(options.threads), "--timeout", "60"));
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().putAll(options.javaEnvironment());
            Process process = builder.start();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IOException(name + " did not finish; see " + log);
            }
            String output = new String(Files.readAllBytes(log), java.nio.charset.StandardCharsets.UTF_8);
            AgentReport.Host agent = withAgent ? AgentReport.read(report).host("127.0.0.1:" + portal.port()) : null;
            return new Row(behaviour, withAgent, ScraperResult.parse(output), portal.stats(), agent, log);
        }
    }
}
