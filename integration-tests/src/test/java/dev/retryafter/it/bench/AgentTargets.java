package dev.retryafter.it.bench;

import dev.retryafter.agent.engine.Policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The agent's targets, checked against its own cells and, for the last, against the other strategies
 * in the same row. Every miss is listed with its figures: nothing is averaged away.
 */
final class AgentTargets {

    static final double MIN_EFFICIENCY = 0.9;
    static final double MAX_REFUSALS_AFTER_FIRST_WINDOW = 0.02;
    static final long MIN_SLEEP_MILLIS = Policy.DEFAULTS.minSleepMillis();
    static final long MAX_SLEEP_MILLIS = Policy.DEFAULTS.maxSleepMillis();

    /** One target: whether every cell met it, and the cells that did not. */
    record Target(String name, int cells, List<String> misses) {
        boolean passed() {
            return misses.isEmpty();
        }
    }

    private AgentTargets() {
    }

    /**
     * Every behaviour here is learnable: each portal refuses at its real limit, and one worker at 50 ms
     * a request can ask for ten times the highest limit, so every cell counts for efficiency.
     */
    static List<Target> check(List<CellResult> results) {
        List<CellResult> agent = results.stream().filter(CellResult::isAgent).toList();
        List<Target> targets = new ArrayList<>();
        targets.add(target("efficiency ≥ " + MIN_EFFICIENCY + " of the real limit", agent,
                r -> r.efficiency() >= MIN_EFFICIENCY, r -> format("efficiency %.2f", r.efficiency()) + whyShort(r)));
        targets.add(target("refusals after the first window < " + percent(MAX_REFUSALS_AFTER_FIRST_WINDOW) + " of requests", agent,
                r -> r.refusalShareAfterFirstWindow() < MAX_REFUSALS_AFTER_FIRST_WINDOW,
                r -> format("%d of %d requests refused (%s)", r.refusalsAfterFirstWindow(), r.requestsAfterFirstWindow(),
                        percent(r.refusalShareAfterFirstWindow()))));
        targets.add(target("no gap after a refusal under min-sleep (" + MIN_SLEEP_MILLIS / 1000 + " s): own; any, with one worker", agent,
                AgentTargets::keepsTheFloor, AgentTargets::gaps));
        targets.add(target("no sleep over max-sleep (" + MAX_SLEEP_MILLIS / 1000 + " s)", agent,
                r -> r.learned().longestDecidedWaitMillis() <= MAX_SLEEP_MILLIS, AgentTargets::sleeps));
        targets.add(betterInEveryRow(results));
        return targets;
    }

    /** The known reasons a row falls short of the efficiency target; empty when there is none to give. */
    private static String whyShort(CellResult r) {
        switch (r.scenario().behaviour()) {
            case UNRELIABLE:
                return ": the guide's rule for a header not proven truthful is max(header, backoff), so each refusal waits"
                        + " a draw of a random header of up to two windows, a window on average";
            case DRIFTS_TO_CONSTANT:
                return ": after the change, two refusals each waited max-sleep (300 s) before the host, truthful until"
                        + " then, was judged to be lying; one streak is not evidence enough";
            default:
                return "";
        }
    }

    private static boolean keepsTheFloor(CellResult r) {
        boolean own = r.portal().shortestGapAfterOwnRefusalMillis < 0 || r.portal().shortestGapAfterOwnRefusalMillis >= MIN_SLEEP_MILLIS;
        boolean any = r.threads() > 1 || r.portal().shortestGapAfterAnyRefusalMillis < 0
                || r.portal().shortestGapAfterAnyRefusalMillis >= MIN_SLEEP_MILLIS;
        return own && any;
    }

    private static String gaps(CellResult r) {
        return format("shortest gap %d ms own, %d ms any", r.portal().shortestGapAfterOwnRefusalMillis,
                r.portal().shortestGapAfterAnyRefusalMillis);
    }

    private static String sleeps(CellResult r) {
        return format("longest single wait %.1f s; a worker's longest stretch between requests %.1f s",
                r.learned().longestDecidedWaitMillis() / 1000.0, r.longestSleepMillis() / 1000.0);
    }

    /**
     * Better than each other strategy on completion time or on refusals provoked, in the agent's own
     * row: the same portal and the same number of workers.
     */
    private static Target betterInEveryRow(List<CellResult> results) {
        List<String> misses = new ArrayList<>();
        int rows = 0;
        for (CellResult agent : results) {
            if (!agent.isAgent()) {
                continue;
            }
            rows++;
            for (CellResult other : results) {
                if (!other.isAgent() && sameRow(agent, other) && !isBetter(agent, other)) {
                    misses.add(row(agent) + " vs " + other.strategy() + ": " + whyNotBetter(agent, other));
                }
            }
        }
        return new Target("better than every other strategy on completion time or on refusals provoked", rows, misses);
    }

    private static boolean isBetter(CellResult agent, CellResult other) {
        return isSooner(agent, other) || agent.portal().refusals < other.portal().refusals;
    }

    /** A run that fetched fewer records stopped by giving the rest up: it never wins on time, nor does a stalled one. */
    private static boolean isSooner(CellResult a, CellResult b) {
        if (a.stalled() || a.fetched() < b.fetched()) {
            return false;
        }
        return a.fetched() > b.fetched() || b.stalled() || a.elapsedMillis() < b.elapsedMillis();
    }

    /** The figures that decide it, and the mechanism they point to. */
    private static String whyNotBetter(CellResult agent, CellResult other) {
        String figures = format("%s %s with %d refusals; agent %s with %d", other.strategy(), outcome(other),
                other.portal().refusals, outcome(agent), agent.portal().refusals);
        return figures + " — " + mechanism(agent, other);
    }

    private static String mechanism(CellResult agent, CellResult other) {
        if (agent.held() > 0) {
            return "the agent held the host and failed " + agent.held() + " records without sending them";
        }
        if (agent.lost() > other.lost()) {
            return format("the agent gave up %d records (%s %d), each after %d refused attempts: its waits ended inside "
                    + "the same exhausted window", agent.lost(), other.strategy(), other.lost(), Policy.DEFAULTS.maxAttempts());
        }
        String agentSide = format("the agent, classing the portal %s, probes above the limit and waits up to %.0f s after a refusal",
                agent.learned().category(), agent.learned().longestDecidedWaitMillis() / 1000.0);
        if (other.refusalsAfterFirstWindow() == 0 && other.learned() != null && other.learned().pacePerMinute() > 0) {
            return format("%s paces at %.0f/min, under the limit, and is never refused after the first window; %s",
                    other.strategy(), other.learned().pacePerMinute(), agentSide);
        }
        return agentSide;
    }

    private static String outcome(CellResult r) {
        if (r.stalled()) {
            return "stalled at the cap";
        }
        String time = format("took %.1f min", r.completionMinutes());
        return r.lost() == 0 ? time : time + format(" and lost %d", r.lost());
    }

    private static boolean sameRow(CellResult a, CellResult b) {
        return a.scenario().equals(b.scenario()) && a.threads() == b.threads();
    }

    static String row(CellResult r) {
        return r.scenario().behaviour().label() + " at " + r.scenario().limitLabel() + "/min, " + r.threads()
                + (r.threads() == 1 ? " worker" : " workers");
    }

    private static Target target(String name, List<CellResult> cells, Predicate<CellResult> met,
                                 Function<CellResult, String> figures) {
        List<String> misses = cells.stream().filter(met.negate()).map(r -> row(r) + ": " + figures.apply(r)).toList();
        return new Target(name, cells.size(), misses);
    }

    private static String percent(double share) {
        return format("%.1f%%", 100 * share);
    }

    private static String format(String pattern, Object... args) {
        return String.format(Locale.ROOT, pattern, args);
    }
}
