package dev.retryafter.it;

import dev.retryafter.demo.portal.Behaviour;
import dev.retryafter.demo.portal.PortalModel;
import dev.retryafter.demo.portal.PortalServer;
import dev.retryafter.it.harness.ChildJvm;
import dev.retryafter.it.harness.Clients;
import dev.retryafter.it.harness.Jdk;
import dev.retryafter.it.harness.ScraperRun;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What start-up costs that a test can see: from {@code premain} to the exit report of a run never
 * refused, the agent links no lambda of its own. A JVM's first lambda costs some 90 ms on Java 8
 * (the invokedynamic machinery), and each one 1 to 3 ms on later JDKs; the cost benchmark's
 * start-up table has the figures.
 */
@Execution(ExecutionMode.CONCURRENT)
class StartUpTest {

    /** A lambda class of the agent's, as {@code -verbose:class} names it on Java 8 and on 9 and later. */
    private static final Pattern AGENT_LAMBDA = Pattern.compile("dev\\.retryafter\\.agent\\.\\S*\\$\\$Lambda");

    /** The blocking clients on the build's JDK, and Java 8 with Apache 4, which links no lambda of its own either. */
    static Stream<Arguments> clients() {
        return Stream.concat(Clients.ON_EVERY_JDK.stream().map(client -> Arguments.of(Jdk.JAVA_17, client)),
                Stream.of(Arguments.of(Jdk.JAVA_8, "apache4")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("clients")
    void theAgentLinksNoLambdaOfItsOwnFromPremainToTheExitReport(Jdk jdk, String client) throws Exception {
        try (PortalServer portal = new PortalServer(new PortalModel(Behaviour.TRUTHFUL, 1_000, 1_000))) {
            ScraperRun run = ScraperRun.run(new ChildJvm(jdk).jvmArg("-verbose:class"), "", client, portal.baseUrl(), 2);
            assertEquals(0, run.jvm.exitCode, run::toString);
            assertEquals(2, run.fetched, run::toString);
            assertEquals(1, run.report().hosts().size(), () -> "the requests were governed\n" + run);
            List<String> lambdas = run.jvm.stdout.lines().filter(line -> AGENT_LAMBDA.matcher(line).find())
                    .collect(Collectors.toList());
            assertEquals(List.of(), lambdas, "lambdas of the agent's linked on the way; make them classes (see AgentInstaller)");
        }
    }
}
