package dev.retryafter.it.cost;

import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Jdk;

import java.net.URI;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A child JVM that runs one client against the loopback server, and what the agent in it counted. */
final class ClientChild {

    private ClientChild() {
    }

    /** The snapshot's classes and the client's own jars, nothing else: the class path an application of that client has. */
    static ChildJvm jvm(Snapshot snapshot, Jdk jdk, String client) {
        List<String> prefixes = LoopbackClient.jarPrefixes(client);
        return new ChildJvm(jdk).measured().classpathEntry(snapshot.classes().toString())
                .classpath(name -> prefixes.stream().anyMatch(name::startsWith));
    }

    /**
     * Requests to the server that the agent's exit report counted, or -1 when it reported none: the
     * check that a run "with the agent" was governed, not merely started with the flag.
     */
    static long agentCounted(ChildJvm.Result child, URI server) {
        Pattern line = Pattern.compile("retry-after-agent - " + Pattern.quote(server.getHost() + ":" + server.getPort())
                + ": (\\d+) requests,");
        Matcher m = line.matcher(child.stderr);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }
}
