package dev.retryafter.it.harness;

import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.PrintWriter;

import static org.junit.platform.engine.discovery.ClassNameFilter.includeClassNamePatterns;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

/**
 * Runs the tests of one package in this JVM and exits 0 only when some ran and none failed. The
 * attached client suite runs through it in a child JVM that carries the agent, so that it runs beside
 * the other tests rather than after them.
 */
public final class AttachedSuiteMain {

    /** The line after which the summary and the failures stand: the tests' own output comes before it. */
    public static final String SUMMARY = "== the attached suite's summary ==";

    private AttachedSuiteMain() {
    }

    public static void main(String[] args) {
        String testPackage = args[0];
        String classNames = args.length > 1 ? args[1] : ".*Test"; // a regular expression, to run one class by hand
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectPackage(testPackage))
                .filters(includeClassNamePatterns(classNames))
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        out.println(SUMMARY);
        summary.printTo(out);
        summary.printFailuresTo(out, 40);
        out.flush();
        boolean passed = summary.getTestsSucceededCount() > 0 && summary.getTotalFailureCount() == 0;
        System.exit(passed ? 0 : 1);
    }
}
