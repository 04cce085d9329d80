package dev.retryafter.agent.metrics;

import dev.retryafter.agent.GoverningSwitch;
import dev.retryafter.agent.config.Policies;
import dev.retryafter.agent.engine.Call;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.Policy;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.RetryEngine;
import dev.retryafter.agent.testing.RecordingListener;
import dev.retryafter.agent.testing.VirtualClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A page rendered from a real engine in virtual time: what each series says, and that the page is well formed. */
class MetricsPageTest {

    /** A metric name as both formats allow it, with the agent's prefix. */
    private static final Pattern NAME = Pattern.compile("retry_after_agent_[a-z_]+");
    /** A sample line: name, optional labels (values escaped), a value. */
    private static final Pattern SAMPLE = Pattern.compile(
            "(" + NAME.pattern() + ")(\\{[a-z_]+=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"(?:,[a-z_]+=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\")*\\})? "
                    + "(-?[0-9]+(?:\\.[0-9]+)?(?:E-?[0-9]+)?|NaN|[+-]Inf)");

    private final VirtualClock clock = new VirtualClock();
    private final RecordingListener log = new RecordingListener();
    private final GoverningSwitch governing = new GoverningSwitch();
    private final RetryEngine engine = RetryEngine.builder().clock(clock).sleeper(clock).random(new Random(3)::nextDouble)
            .listener(log).policies(Policies.defaultsOnly(Policy.DEFAULTS)).build();
    private final MetricsPage page = new MetricsPage(engine, governing, "1.2.3");

    /** One request to {@code host}, whose attempts are answered with {@code statuses} in turn (Retry-After: 0 on each refusal). */
    private void request(String host, int port, int... statuses) throws Exception {
        Call call = engine.open(host, port, true);
        int i = 0;
        do {
            call.awaitTurn();
            clock.advance(20);
            int status = statuses[i++];
            call.onResponse(status, status == 200 ? null : "0");
            call.endAttempt();
        } while (call.retryRequested() && i < statuses.length);
    }

    @Test
    void beforeAnyRequestOnlyTheAgentsSeries() {
        String text = page.render(false);
        assertEquals(List.of("retry_after_agent_build_info{version=\"1.2.3\"} 1", "retry_after_agent_enabled 1",
                "retry_after_agent_mode{mode=\"observe\"} 0", "retry_after_agent_mode{mode=\"enforce\"} 1",
                "retry_after_agent_hosts_tracked 0"), samples(text));
        wellFormed(text, false);
    }

    @Test
    void eachHostsFiguresAreItsSnapshotsAndItsRefusalsAreSplitByStatus() throws Exception {
        request("portal.example", 443, 429, 503, 200);
        request("portal.example", 443, 429, 200);
        request("quiet.example", 8080, 200);
        String text = page.render(false);
        wellFormed(text, false);
        List<String> samples = samples(text);

        HostSnapshot portal = snapshot("portal.example:443");
        assertEquals(5, portal.requests);
        assertEquals(3, portal.refusals);
        assertTrue(samples.contains("retry_after_agent_requests_total{host=\"portal.example:443\"} 5"), text);
        assertTrue(samples.contains("retry_after_agent_requests_total{host=\"quiet.example:8080\"} 1"), text);
        assertTrue(samples.contains("retry_after_agent_refusals_total{host=\"portal.example:443\",status=\"429\"} 2"), text);
        assertTrue(samples.contains("retry_after_agent_refusals_total{host=\"portal.example:443\",status=\"503\"} 1"), text);
        assertFalse(text.contains("refusals_total{host=\"quiet.example:8080\""), "a host never refused has no refusal series");
        assertTrue(samples.contains("retry_after_agent_retries_total{host=\"portal.example:443\"} " + portal.retries), text);
        assertFalse(portal.waitedByCause.causes().isEmpty(), "the refusals were waited out");
        for (Reason cause : portal.waitedByCause.causes()) {
            assertTrue(cause.isRefusalWait(), cause + ": only refusals to wait for here");
            assertEquals(portal.waitedByCause.millis(cause) / 1000.0,
                    value(samples, "retry_after_agent_wait_seconds_total{host=\"portal.example:443\",cause=\"" + cause.name() + "\"}"), text);
        }
        assertEquals(portal.waitedMillis, portal.waitedByCause.totalMillis(), "nothing queued: the time slept, by cause");
        assertFalse(text.contains("wait_seconds_total{host=\"quiet.example:8080\""), "a host that never waited has no wait series");
        assertTrue(portal.waitedMillis >= 2 * Policy.DEFAULTS.minSleepMillis(), "each refusal waited at least min-sleep");
        assertTrue(samples.contains("retry_after_agent_held{host=\"portal.example:443\"} 0"), text);
        assertTrue(samples.contains("retry_after_agent_in_flight{host=\"portal.example:443\"} 0"), text);
        assertTrue(samples.contains("retry_after_agent_category{host=\"portal.example:443\",category=\"" + portal.category.label() + "\"} 1"), text);
        assertTrue(samples.contains("retry_after_agent_hosts_tracked 2"), text);
        assertTrue(text.indexOf("host=\"portal.example:443\"") < text.indexOf("host=\"quiet.example:8080\""), "hosts in order");
    }

    @Test
    void aBlockIsAHoldNotARefusalAsInTheExitReport() throws Exception {
        request("blocked.example", 443, 429, 403);
        HostSnapshot blocked = snapshot("blocked.example:443");
        assertTrue(blocked.holdUntil().isPresent(), "a 403 after a refusal holds the host");
        String text = page.render(false);
        wellFormed(text, false);
        List<String> samples = samples(text);
        assertEquals(1, blocked.refusals);
        assertTrue(samples.contains("retry_after_agent_refusals_total{host=\"blocked.example:443\",status=\"429\"} 1"), text);
        assertFalse(text.contains("status=\"403\""), text);
        assertTrue(samples.contains("retry_after_agent_held{host=\"blocked.example:443\"} 1"), text);
        assertTrue(samples.contains("retry_after_agent_holds_total{host=\"blocked.example:443\"} 1"), text);
        assertEquals(blocked.holdUntil().getAsLong() / 1000.0,
                value(samples, "retry_after_agent_held_until_timestamp_seconds{host=\"blocked.example:443\"}"), 0.001, text);
    }

    @Test
    void aHostNameIsEscapedAsALabelValue() throws Exception {
        request("odd\"host\\name", 80, 429, 200);
        String text = page.render(false);
        wellFormed(text, false);
        assertTrue(text.contains("retry_after_agent_requests_total{host=\"odd\\\"host\\\\name:80\"} 2"), text);
        wellFormed(page.render(true), true);
    }

    @Test
    void aForgottenHostLeavesThePageAndItsCountsWithIt() throws Exception {
        request("portal.example", 443, 429, 200);
        assertTrue(page.render(false).contains("portal.example"));
        assertTrue(engine.forget("portal.example:443"));
        String text = page.render(false);
        assertFalse(text.contains("portal.example"), text);

        request("portal.example", 443, 200);
        assertFalse(page.render(false).contains("refusals_total{host=\"portal.example:443\""),
                "made again, the host starts from zero, as the engine's own counters do");
    }

    @Test
    void theModeAndTheSwitchAsTheyAreNow() {
        engine.switchMode(Mode.OBSERVE);
        governing.set(false);
        List<String> samples = samples(page.render(false));
        assertTrue(samples.contains("retry_after_agent_mode{mode=\"observe\"} 1"), samples::toString);
        assertTrue(samples.contains("retry_after_agent_mode{mode=\"enforce\"} 0"), samples::toString);
        assertTrue(samples.contains("retry_after_agent_enabled 0"), samples::toString);
    }

    @Test
    void openMetricsNamesCounterFamiliesWithoutTotalAndEnds() throws Exception {
        request("portal.example", 443, 429, 200);
        String text = page.render(true);
        wellFormed(text, true);
        assertTrue(text.contains("# TYPE retry_after_agent_refusals counter\n"), text);
        assertTrue(text.contains("retry_after_agent_refusals_total{host=\"portal.example:443\",status=\"429\"} 1\n"), text);
        assertTrue(text.endsWith("# EOF\n"), text);
    }

    /** The value of the series named with its labels as written. */
    private static double value(List<String> samples, String series) {
        for (String sample : samples) {
            if (sample.startsWith(series + " ")) {
                return Double.parseDouble(sample.substring(series.length() + 1));
            }
        }
        throw new AssertionError("no series " + series + " in " + samples);
    }

    private HostSnapshot snapshot(String key) {
        return engine.host(key).snapshot(engine.now());
    }

    private static List<String> samples(String text) {
        List<String> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.startsWith("#")) {
                samples.add(line);
            }
        }
        return samples;
    }

    /**
     * Every family has HELP then TYPE, once; every sample parses and follows its family's lines, in a
     * family of its name (a counter's samples end in _total); no series twice; OpenMetrics ends in # EOF.
     */
    private static void wellFormed(String text, boolean openMetrics) {
        assertTrue(text.endsWith("\n"));
        Set<String> families = new HashSet<>();
        Set<String> series = new HashSet<>();
        String family = null;
        String type = null;
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.equals("# EOF")) {
                assertTrue(openMetrics && i == lines.length - 1, "# EOF last, in OpenMetrics only");
                continue;
            }
            if (line.startsWith("# HELP ")) {
                family = line.split(" ")[2];
                assertTrue(NAME.matcher(family).matches(), line);
                assertTrue(families.add(family), "one family of each name: " + family);
                String typeLine = lines[++i];
                assertTrue(typeLine.startsWith("# TYPE " + family + " "), typeLine);
                type = typeLine.substring(("# TYPE " + family + " ").length());
                assertTrue(type.equals("counter") || type.equals("gauge"), typeLine);
                assertEquals(type.equals("counter") && !openMetrics, family.endsWith("_total"), typeLine);
                continue;
            }
            Matcher sample = SAMPLE.matcher(line);
            assertTrue(sample.matches(), "not a sample: " + line);
            String expected = type.equals("counter") && openMetrics ? family + "_total" : family;
            assertEquals(expected, sample.group(1), line);
            assertTrue(series.add(sample.group(1) + sample.group(2)), "one sample per series: " + line);
        }
        assertEquals(openMetrics, text.endsWith("# EOF\n"));
    }
}
