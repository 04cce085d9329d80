package dev.retryafter.agent.config;

import dev.retryafter.agent.engine.Category;
import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.Policy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PolicyFileTest {

    @TempDir
    Path dir;

    private AgentConfig read(String text) throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, text);
        return PolicyFile.read(file, Collections.emptyList());
    }

    private ConfigException error(String text) throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, text);
        return assertThrows(ConfigException.class, () -> PolicyFile.read(file, Collections.emptyList()));
    }

    @Test
    void theIssuesExampleReadsAsWritten() throws Exception {
        AgentConfig config = read("enabled = true\n"
                + "default.max-sleep = 300s                 # any setting below, for every host\n"
                + "policy.king.hosts = data.kingcounty.gov, 127.0.0.1:8081, *.piercecountywa.gov\n"
                + "policy.king.max-concurrency = 2          # any setting, for the hosts of that policy\n");
        assertTrue(config.enabled());
        Policy king = config.policies().policyFor("data.kingcounty.gov", 443);
        assertEquals("king", king.name());
        assertEquals(2, king.maxConcurrency());
        assertEquals(300_000, king.maxSleepMillis());
        assertSame(king, config.policies().policyFor("data.kingcounty.gov", 8080), "no port: any port");
        assertSame(king, config.policies().policyFor("127.0.0.1", 8081));
        assertEquals("default", config.policies().policyFor("127.0.0.1", 8082).name(), "that port only");
        assertSame(king, config.policies().policyFor("gis.piercecountywa.gov", 443));
        assertSame(king, config.policies().policyFor("a.b.piercecountywa.gov", 443));
        assertEquals("default", config.policies().policyFor("piercecountywa.gov", 443).name(), "*.x is subdomains only");
        assertEquals("default", config.policies().policyFor("evilpiercecountywa.gov", 443).name());
    }

    @Test
    void everySettingAndItsUnits() throws Exception {
        Policy p = read("default.min-sleep = 250ms\n"
                + "default.max-sleep = 5m\n"
                + "default.max-attempts = 7\n"
                + "default.max-concurrency = 3\n"
                + "default.backoff-base = 2\n"
                + "default.backoff-cap = 1h\n"
                + "default.window = 90s\n"
                + "default.headroom = 0.75\n"
                + "default.retry-statuses = 429, 503, 502\n"
                + "default.category = always-zero\n"
                + "default.rate = 40/min\n").policies().defaults();
        assertEquals(250, p.minSleepMillis());
        assertEquals(300_000, p.maxSleepMillis());
        assertEquals(7, p.maxAttempts());
        assertEquals(3, p.maxConcurrency());
        assertEquals(2_000, p.backoffBaseMillis(), "a bare number is seconds");
        assertEquals(3_600_000, p.backoffCapMillis());
        assertEquals(90_000, p.windowMillis());
        assertEquals(0.75, p.headroom());
        assertTrue(p.isRefusal(502));
        assertEquals(Category.ALWAYS_ZERO, p.pinnedCategory());
        assertEquals(40.0 / 60, p.startRatePerSecond(), 1e-12);
        assertEquals(2.0, read("default.rate = 2/s\n").policies().defaults().startRatePerSecond());
        assertEquals(100.0 / 3600, read("default.rate = 100/h\n").policies().defaults().startRatePerSecond(), 1e-12);
        assertNull(read("default.category = auto\n").policies().defaults().pinnedCategory());
    }

    @Test
    void modeIsEnforceUnlessSaidAndAPolicyMayFollowOrSetItsOwn() throws Exception {
        AgentConfig plain = read("default.max-attempts = 3\n");
        assertEquals(Mode.ENFORCE, plain.mode());
        assertNull(plain.policies().defaults().mode(), "follows the engine's mode, which can be switched at run time");
        assertEquals(5_000, plain.reloadMillis());

        AgentConfig config = read("mode = observe\nreload = off\npolicy.known.hosts = known.example\npolicy.known.mode = enforce\n");
        assertEquals(Mode.OBSERVE, config.mode());
        assertEquals(0, config.reloadMillis());
        assertEquals(Mode.ENFORCE, config.policies().policyFor("known.example", 443).mode());
        assertNull(config.policies().policyFor("other.example", 443).mode());
        assertEquals(Mode.OBSERVE, read("default.mode = observe\npolicy.p.hosts = p.example\n").policies().policyFor("p.example", 443).mode(),
                "a policy inherits default.mode");
    }

    @Test
    void aModeOrReloadThatDoesNotReadNamesItsLine() throws Exception {
        assertEquals(dir.resolve("policies.properties") + ":2: mode: 'watch' is not observe or enforce", error("enabled = true\nmode = watch\n").getMessage());
        assertEquals(dir.resolve("policies.properties") + ":1: policy.p.mode: 'dry-run' is not observe or enforce",
                error("policy.p.mode = dry-run\npolicy.p.hosts = p.example\n").getMessage());
        assertEquals(dir.resolve("policies.properties") + ":1: reload: '10ms' must be off or at least 100ms", error("reload = 10ms\n").getMessage());
    }

    @Test
    void aPolicyStartsFromTheDefaultsWhereverTheyAreWritten() throws Exception {
        AgentConfig config = read("policy.slow.hosts = slow.example\n"
                + "policy.slow.max-attempts = 9\n"
                + "default.min-sleep = 2s\n");
        Policy slow = config.policies().policyFor("slow.example", 443);
        assertEquals(9, slow.maxAttempts());
        assertEquals(2_000, slow.minSleepMillis());
    }

    @Test
    void bracketedIpv6WithAndWithoutPort() throws Exception {
        AgentConfig config = read("policy.local.hosts = [::1]:8080, [fe80::1]\n");
        assertEquals("local", config.policies().policyFor("[::1]", 8080).name());
        assertEquals("default", config.policies().policyFor("[::1]", 8081).name());
        assertEquals("local", config.policies().policyFor("[fe80::1]", 443).name());
    }

    @Test
    void aUrlStandsForItsHostAndPort() throws Exception {
        AgentConfig config = read("policy.king.hosts = https://data.kingcounty.gov/resource/abcd-1234.json?$limit=10, "
                + "http://user@127.0.0.1:8081/api\n");
        assertEquals("king", config.policies().policyFor("data.kingcounty.gov", 443).name());
        assertEquals("king", config.policies().policyFor("127.0.0.1", 8081).name());
        assertEquals("default", config.policies().policyFor("127.0.0.1", 8082).name());
    }

    @Test
    void onAndOffReadAsTrueFalseYesNoOrOneZero() throws Exception {
        assertTrue(read("enabled = 1\n").enabled());
        assertFalse(read("enabled = 0\n").enabled());
        assertFalse(read("enabled = off\n").enabled());
    }

    @Test
    void theFirstMatchingPolicyWinsInFileOrder() throws Exception {
        AgentConfig config = read("policy.one.hosts = *.example.gov\n"
                + "policy.two.hosts = data.example.gov\n");
        assertEquals("one", config.policies().policyFor("data.example.gov", 443).name());
    }

    @Test
    void commentsContinuationsAndColons() throws Exception {
        AgentConfig config = read("# a comment\n"
                + "! another\n"
                + "\n"
                + "policy.many.hosts = a.example, \\\n"
                + "                    b.example  # the second host\n"
                + "report: /tmp/report.json\n");
        assertEquals("many", config.policies().policyFor("b.example", 80).name());
        assertEquals("/tmp/report.json", config.reportPath());
    }

    @Test
    void anUnknownKeyNamesFileLineAndKeyAndSuggestsTheNearest() throws Exception {
        ConfigException e = error("# policies\ndefault.min-sleep = 1s\npolicy.king.hosts = a.gov\npolicy.king.max-concurency = 2\n");
        assertEquals(4, e.line());
        assertEquals("policy.king.max-concurency", e.key());
        assertTrue(e.source().endsWith("policies.properties"));
        assertTrue(e.getMessage().endsWith("policies.properties:4: policy.king.max-concurency: unknown key; did you mean policy.king.max-concurrency?"),
                e.getMessage());
    }

    @Test
    void aKeyFarFromAnyKnownOneIsUnknownWithoutAGuess() throws Exception {
        ConfigException e = error("completely.unrelated = 1\n");
        assertTrue(e.getMessage().endsWith(":1: completely.unrelated: unknown key"), e.getMessage());
    }

    @Test
    void aBadValueNamesItsLineAndKey() throws Exception {
        ConfigException e = error("default.min-sleep = 1s\ndefault.max-sleep = soon\n");
        assertEquals(2, e.line());
        assertEquals("default.max-sleep", e.key());
        assertTrue(e.getMessage().contains("'soon' is not a duration"), e.getMessage());
        assertTrue(error("default.rate = 40 per minute\n").getMessage().contains("is not a rate"));
        assertTrue(error("default.category = honest\n").getMessage().contains("is not auto, truthful"));
        assertTrue(error("enabled = maybe\n").getMessage().contains("'maybe' is not true or false"));
        assertTrue(error("policy.p.hosts = a.gov:99999\n").getMessage().contains("port outside 1-65535"));
        assertTrue(error("policy.p.hosts = ::1\n").getMessage().contains("IPv6 address without brackets"));
    }

    @Test
    void aPolicyWithoutHostsIsAnError() throws Exception {
        ConfigException e = error("default.min-sleep = 1s\npolicy.lost.max-attempts = 3\n");
        assertEquals(2, e.line());
        assertEquals("policy.lost.hosts", e.key());
        assertTrue(e.getMessage().contains("policy 'lost' has no hosts"), e.getMessage());
    }

    @Test
    void inconsistentValuesNameTheLineThatMadeThemSo() throws Exception {
        ConfigException e = error("default.min-sleep = 10s\npolicy.p.hosts = a.gov\npolicy.p.max-sleep = 5s\n");
        assertEquals(3, e.line());
        assertEquals("policy.p.max-sleep", e.key());
        assertTrue(e.getMessage().contains("must not be below min-sleep"), e.getMessage());
    }

    /** The issue's case: backoff-cap is not in the file, so it cannot be the key to blame. */
    @Test
    void aBackoffBaseAboveTheDefaultCapNamesItsOwnLineAndKey() throws Exception {
        ConfigException e = error("default.backoff-base = 90s\n");
        assertEquals(1, e.line());
        assertEquals("default.backoff-base", e.key());
        assertTrue(e.getMessage().endsWith(":1: default.backoff-base: must not be above backoff-cap (60s, the built-in default)"),
                e.getMessage());
    }

    @Test
    void anInconsistentPolicySettingNamesItsLineNotTheHostsLine() throws Exception {
        ConfigException e = error("policy.b.hosts = b.gov\npolicy.b.backoff-base = 2m\n");
        assertEquals(2, e.line());
        assertEquals("policy.b.backoff-base", e.key());
        assertTrue(e.getMessage().contains("must not be above backoff-cap"), e.getMessage());
    }

    @Test
    void ofTwoInconsistentKeysTheOneSetLastIsNamed() throws Exception {
        ConfigException inDefaults = error("default.backoff-cap = 10s\ndefault.backoff-base = 20s\n");
        assertEquals(2, inDefaults.line());
        assertEquals("default.backoff-base", inDefaults.key());
        assertTrue(inDefaults.getMessage().endsWith("must not be above backoff-cap (default.backoff-cap = 10s, line 1)"),
                inDefaults.getMessage());
        ConfigException capLast = error("default.min-sleep = 20s\ndefault.max-sleep = 10s\n");
        assertEquals(2, capLast.line());
        assertEquals("default.max-sleep", capLast.key());
        assertTrue(capLast.getMessage().endsWith("must not be below min-sleep (default.min-sleep = 20s, line 1)"), capLast.getMessage());
        ConfigException policyOverDefaults = error("policy.p.hosts = a.gov\npolicy.p.max-sleep = 3s\ndefault.min-sleep = 2s\n"
                + "default.max-sleep = 4s\npolicy.p.min-sleep = 5s\n");
        assertEquals(5, policyOverDefaults.line(), "the policy's own key, not the defaults' it inherits");
        assertEquals("policy.p.min-sleep", policyOverDefaults.key());
        ConfigException inherited = error("default.min-sleep = 20s\npolicy.p.hosts = a.gov\npolicy.p.max-sleep = 5s\n");
        assertEquals(3, inherited.line());
        assertTrue(inherited.getMessage().endsWith("must not be below min-sleep (default.min-sleep = 20s, line 1)"), inherited.getMessage());
    }

    @Test
    void anArgumentOverrideThatMakesTheFileInconsistentIsNamed() throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, "default.backoff-cap = 10s\n");
        ConfigException e = assertThrows(ConfigException.class,
                () -> AgentArguments.load("config=" + file + ",default.backoff-base=20s", Map.of()));
        assertEquals("agent argument", e.source());
        assertEquals("default.backoff-base", e.key());
    }

    @Test
    void aContinuedLineNamesTheLineItsKeyIsOn() throws Exception {
        ConfigException afterContinuation = error("policy.many.hosts = a.example, \\\n"
                + "    b.example\n"
                + "default.max-sleep = soon\n");
        assertEquals(3, afterContinuation.line());
        ConfigException keyAfterABackslash = error("# policies\n\\\ndefault.max-sleep = soon\n");
        assertEquals(3, keyAfterABackslash.line(), "a line holding only a continuation has no key");
        ConfigException valueContinued = error("default.window = \\\n  soon\n");
        assertEquals(1, valueContinued.line(), "the key's own line");
        ConfigException twice = error("default.window = 1s\n\\\ndefault.window = 2s\n");
        assertEquals(3, twice.line());
        assertTrue(twice.getMessage().contains("set twice; first on line 1"), twice.getMessage());
    }

    @Test
    void aPolicyWithoutANameIsAnErrorThatDoesNotSuggestItself() throws Exception {
        ConfigException e = error("default.min-sleep = 1s\npolicy..hosts = a.gov\n");
        assertEquals(2, e.line());
        assertEquals("policy..hosts", e.key());
        assertFalse(e.getMessage().contains("did you mean policy..hosts"), e.getMessage());
        assertTrue(e.getMessage().contains("policy.NAME.hosts"), e.getMessage());
        ConfigException noSetting = error("policy.hosts = a.gov\n");
        assertFalse(noSetting.getMessage().contains("did you mean policy.hosts"), noSetting.getMessage());
        assertTrue(noSetting.getMessage().contains("policy.NAME.hosts"), noSetting.getMessage());
        ConfigException typo = error("policy..max-atempts = 2\n");
        assertFalse(typo.getMessage().contains("did you mean policy..max-attempts"), typo.getMessage());
    }

    @Test
    void aSuggestionIsNeverTheKeyAsWritten() {
        assertEquals("", PolicyFile.suggestion("policy..hosts"));
        assertEquals("; did you mean policy.king.max-concurrency?", PolicyFile.suggestion("policy.king.max-concurency"));
    }

    @Test
    void aKeySetTwiceIsAnError() throws Exception {
        ConfigException e = error("default.window = 1s\ndefault.window = 2s\n");
        assertEquals(2, e.line());
        assertTrue(e.getMessage().contains("set twice; first on line 1"), e.getMessage());
    }

    @Test
    void aLineWithoutAValueIsAnError() throws Exception {
        assertEquals(1, error("default.window 60s\n").line());
    }

    @Test
    void argumentOverridesReplaceTheFilesValues() throws Exception {
        Path file = dir.resolve("policies.properties");
        Files.writeString(file, "enabled = true\ndefault.max-sleep = 300s\n");
        AgentConfig config = AgentArguments.load("config=" + file + ",enabled=false,default.max-sleep=2m,report=/tmp/r.json", Map.of());
        assertFalse(config.enabled());
        assertEquals(120_000, config.policies().defaults().maxSleepMillis());
        assertEquals("/tmp/r.json", config.reportPath());
    }

    @Test
    void theArgumentCanBeJustAPathOrNothing() throws Exception {
        Path file = dir.resolve("only.properties");
        Files.writeString(file, "default.max-attempts = 2\n");
        assertEquals(2, AgentArguments.load(file.toString(), Map.of()).policies().defaults().maxAttempts());
        AgentConfig none = AgentArguments.load(null, Map.of());
        assertTrue(none.enabled());
        assertSame(Policy.DEFAULTS, none.policies().defaults());
        assertSame(Policy.DEFAULTS, AgentArguments.load("  ", Map.of()).policies().defaults());
    }

    @Test
    void hostsInTheArgumentAreSeparatedBySemicolons() throws Exception {
        AgentConfig config = AgentArguments.load("policy.p.hosts=a.gov;b.gov:8081,policy.p.max-attempts=2", Map.of());
        assertEquals(2, config.policies().policyFor("b.gov", 8081).maxAttempts());
    }

    @Test
    void theEnvironmentSwitchOverridesFileAndArgument() throws Exception {
        Path file = dir.resolve("on.properties");
        Files.writeString(file, "enabled = true\n");
        assertFalse(AgentArguments.load(file.toString(), Map.of(AgentArguments.ENABLED_VARIABLE, "false")).enabled());
        assertFalse(AgentArguments.load(null, Map.of(AgentArguments.ENABLED_VARIABLE, "off")).enabled());
        AgentConfig off = AgentArguments.load("config=" + file + ",enabled=true", Map.of(AgentArguments.ENABLED_VARIABLE, "false"));
        assertFalse(off.enabled(), "whatever the argument says, and in whichever order");
        assertTrue(off.source().contains("environment variable RETRY_AFTER_AGENT_ENABLED"), off.source());
        assertTrue(AgentArguments.load("enabled=false", Map.of(AgentArguments.ENABLED_VARIABLE, "true")).enabled());
    }

    @Test
    void theEnvironmentSwitchIsNoKeyOfTheFileOrTheArgument() throws Exception {
        Path file = dir.resolve("sneaky.properties");
        Files.writeString(file, "RETRY_AFTER_AGENT_ENABLED = true\nenabled = true\n");
        ConfigException inFile = assertThrows(ConfigException.class,
                () -> AgentArguments.load(file.toString(), Map.of(AgentArguments.ENABLED_VARIABLE, "false")));
        assertTrue(inFile.getMessage().startsWith(file + ":1: RETRY_AFTER_AGENT_ENABLED"), inFile.getMessage());
        ConfigException badValue = assertThrows(ConfigException.class,
                () -> AgentArguments.load(null, Map.of(AgentArguments.ENABLED_VARIABLE, "maybe")));
        assertTrue(badValue.getMessage().contains("RETRY_AFTER_AGENT_ENABLED"), badValue.getMessage());
    }

    @Test
    void aBrokenArgumentNamesItself() {
        ConfigException e = assertThrows(ConfigException.class, () -> AgentArguments.load("config=x.properties,nonsense", Map.of()));
        assertTrue(e.getMessage().startsWith("agent argument: nonsense:"), e.getMessage());
        ConfigException unknown = assertThrows(ConfigException.class, () -> AgentArguments.load("default.max-slep=1s", Map.of()));
        assertTrue(unknown.getMessage().contains("did you mean default.max-sleep?"), unknown.getMessage());
    }

    @Test
    void aMissingFileIsAnErrorThatNamesIt() {
        ConfigException e = assertThrows(ConfigException.class, () -> AgentArguments.load("/no/such/file.properties", Map.of()));
        assertTrue(e.getMessage().startsWith("/no/such/file.properties: cannot be read"), e.getMessage());
    }

    @Test
    void policyLinesAreInTheOrderTheyWereWritten() throws Exception {
        List<PolicyFile.Line> lines = PolicyFile.parse("f", "a = 1\n\nb = 2\n");
        assertEquals(1, lines.get(0).number);
        assertEquals(3, lines.get(1).number);
    }
}
