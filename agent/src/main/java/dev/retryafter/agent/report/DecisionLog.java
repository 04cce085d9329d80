package dev.retryafter.agent.report;

import dev.retryafter.agent.log.AgentLog;
import dev.retryafter.agent.log.AgentLogger;
import dev.retryafter.agent.log.LogLine;
import dev.retryafter.agent.engine.CharacterisationChange;
import dev.retryafter.agent.engine.Clock;
import dev.retryafter.agent.engine.DaemonThreads;
import dev.retryafter.agent.engine.Decision;
import dev.retryafter.agent.engine.DecisionLine;
import dev.retryafter.agent.engine.DecisionListener;
import dev.retryafter.agent.engine.learn.HintBudget;
import dev.retryafter.agent.engine.HostHeldException;
import dev.retryafter.agent.engine.HostSnapshot;
import dev.retryafter.agent.engine.HostState;
import dev.retryafter.agent.engine.knowledge.Learned;
import dev.retryafter.agent.engine.Mode;
import dev.retryafter.agent.engine.knowledge.ObservedTurn;
import dev.retryafter.agent.engine.Reason;
import dev.retryafter.agent.engine.Wait;
import dev.retryafter.agent.engine.WaitedTurn;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes the decision log. Lines name host and port only, never a URL. Every reason is named as JMX
 * and {@code status} name it ({@code HEADER_AS_HINT}, {@code PACE}...), followed by its plain words.
 * <ul>
 * <li>WARN: every refusal with its decision; a hold, once; a category that changes.</li>
 * <li>INFO: what the engine learns (ceiling, pace, category); and for each host being paced or
 * refused, a summary at most once a minute of what its requests waited for, by cause. Quiet when
 * nothing waited.</li>
 * <li>DEBUG: one line per request that waited, with each cause and the figure behind it (the pace's
 * rate, the refusal's reason, the cap), and one per request failed fast.</li>
 * </ul>
 * In observe mode each kind of decision is said once per host at its level, the rest at DEBUG, and
 * the summary counts them: a host refusing every request makes a line a minute, not two a request.
 */
public final class DecisionLog implements DecisionListener {

    /** Hidden, for tests: the summary's interval in milliseconds instead of a minute. */
    static final String SUMMARY_INTERVAL_PROPERTY = "retry-after-agent.summary-interval-ms";
    static final long SUMMARY_INTERVAL_MILLIS = 60_000;

    /** How many category changes of one host are said at WARN. */
    public static final int CATEGORY_WARNINGS = 3;

    private final AgentLogger log;
    private final Clock clock;
    private final long summaryMillis;
    /** The hold each host was last logged for: one line per hold, not one per request it fails. */
    private final ConcurrentHashMap<String, Long> loggedHolds = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, HostMinute> minutes = new ConcurrentHashMap<>();
    /** Each host's last decision, for the reason a refusal's wait is named by. */
    private final ConcurrentHashMap<String, Decision> lastDecisions = new ConcurrentHashMap<>();
    /** Category changes said at WARN so far, per host: a header drawn at random moves a host back and forth. */
    private final Map<String, Integer> categoryWarnings = new HashMap<>();
    private final AtomicBoolean summaries = new AtomicBoolean();

    public DecisionLog(AgentLogger log) {
        this(log, Clock.system(), SUMMARY_INTERVAL_MILLIS);
    }

    public DecisionLog(AgentLogger log, Clock clock) {
        this(log, clock, intervalFromProperty());
    }

    DecisionLog(AgentLogger log, Clock clock, long summaryMillis) {
        this.log = log;
        this.clock = clock;
        this.summaryMillis = summaryMillis;
    }

    private static long intervalFromProperty() {
        String set = System.getProperty(SUMMARY_INTERVAL_PROPERTY);
        try {
            return set == null ? SUMMARY_INTERVAL_MILLIS : Math.max(100, Long.parseLong(set.trim()));
        } catch (NumberFormatException e) {
            return SUMMARY_INTERVAL_MILLIS;
        }
    }

    // ---- refusals and what they teach

    @Override
    public void onRefusal(HostState host, Decision decision) {
        lastDecisions.put(host.key(), decision);
        HostMinute minute = minute(host);
        LogLine line = refusalLine(decision);
        if (decision.mode() == Mode.OBSERVE) {
            synchronized (minute) {
                minute.observedRefusals++;
                if (decision.outcome() == Decision.Outcome.RETRY) {
                    minute.wouldRetry++;
                } else if (decision.outcome() == Decision.Outcome.GIVE_UP) {
                    minute.wouldGiveUp++;
                }
            }
            if (minute.firstOfKind("refusal " + decision.outcome() + " " + reason(decision))) {
                log.warn(line);
            } else {
                log.debug(line);
            }
            return;
        }
        synchronized (minute) {
            minute.refusals++;
        }
        log.warn(line);
    }

    /** The decision line, with the reason named as JMX and status name it: {@code ... raised to min-sleep [HEADER_AS_HINT; category unknown]}. */
    static String decisionLine(Decision d) {
        String line = DecisionLine.format(d);
        String tag = " [" + d.category().label() + "]";
        int at = line.lastIndexOf(tag);
        String named = " [" + reason(d) + "; category " + d.category().label() + "]";
        return at < 0 ? line + named : line.substring(0, at) + named + line.substring(at + tag.length());
    }

    private static LogLine refusalLine(Decision d) {
        return LogLine.of("refusal", decisionLine(d)).host(d.host()).reason(reason(d))
                .figure("status", d.status()).figure("attempt", d.attempt()).figure("maxAttempts", d.maxAttempts())
                .figure("retryAfter", cut(d.header().raw())).figure("outcome", d.outcome().name())
                .figure("waitMillis", d.waitBeforeNextRequest().millis()).figure("bound", d.waitBeforeNextRequest().bound().name())
                .figure("category", d.category().label()).figure("mode", d.mode().label());
    }

    /** A header is evidence, not a payload to copy into logs: cut as the text line cuts it. */
    static String cut(String header) {
        return header == null || header.length() <= MAX_HEADER_CHARS ? header
                : header.substring(0, MAX_HEADER_CHARS) + "...(" + header.length() + " chars)";
    }

    private static final int MAX_HEADER_CHARS = 64;

    private static String reason(Decision d) {
        return d.waitBeforeNextRequest().reason().name();
    }

    @Override
    public void onLearned(HostState host, Learned learned) {
        if (learned.pacePerSecond() <= 0) {
            // The first refusal of a host whose window is not known: no window to count in, and no pace yet.
            log.info(LogLine.of("learned", String.format(Locale.ROOT, "%s refused after %d successes; its limit is learned when the refusals end",
                    host.key(), learned.ceiling())).host(host.key()).figure("ceiling", learned.ceiling()));
            return;
        }
        log.info(LogLine.of("learned", String.format(Locale.ROOT, "%s learned: %d successes in a %s window before the refusal; pace now %.1f/min",
                host.key(), learned.ceiling(), DecisionLine.duration(learned.windowMillis()), learned.pacePerSecond() * 60))
                .host(host.key()).figure("ceiling", learned.ceiling()).figure("windowMillis", learned.windowMillis())
                .figure("pacePerMinute", learned.pacePerSecond() * 60));
    }

    @Override
    public void onRecharacterised(HostState host, CharacterisationChange change) {
        String evidence = change.evidence();
        if (change.isCategoryChange()) {
            // A host whose header has no pattern moves between truthful and unreliable as streaks come and go:
            // the operator is told the first few times, then that it keeps moving, then it is at info.
            int warned;
            synchronized (categoryWarnings) {
                Integer before = categoryWarnings.get(host.key());
                warned = before == null ? 1 : before + 1;
                categoryWarnings.put(host.key(), warned);
            }
            String line = host.key() + " category changed: " + change.before() + " -> " + change.after() + "; " + evidence;
            if (warned < CATEGORY_WARNINGS) {
                log.warn(line);
            } else if (warned == CATEGORY_WARNINGS) {
                log.warn(line + "; it keeps changing: its header has no steady pattern (further changes at info)");
            } else {
                log.info(line);
            }
        } else if (change.isMedianShift()) {
            log.warn(host.key() + " median recovery/header moved by more than 2x: " + change.before() + " -> " + change.after()
                    + "; " + evidence);
        } else {
            log.info(host.key() + " category: " + change.after() + "; " + evidence);
        }
    }

    @Override
    public void onHints(HostState host, HintBudget.Change change) {
        if (change.isBelief()) {
            log.info(host.key() + " " + change);
        } else {
            log.warn(host.key() + " " + change);
        }
    }

    // ---- holds

    @Override
    public void onHeldRequest(HostState host, HostHeldException failure) {
        HostMinute minute = minute(host);
        synchronized (minute) {
            minute.failedFast++;
        }
        String held = withoutPrefix(failure.getMessage());
        if (failure.whileProbing()) {
            log.debug(heldLine(host, held)); // the hold's line said requests fail fast until a probe is let through
            return;
        }
        Long before = loggedHolds.put(host.key(), failure.untilMillis());
        if (before == null || before != failure.untilMillis()) {
            log.warn(heldLine(host, held + "; later requests fail the same way until then (counted in the report)"));
        } else {
            log.debug(heldLine(host, held));
        }
    }

    private LogLine heldLine(HostState host, String text) {
        Decision last = lastDecisions.get(host.key());
        String reason = last != null && last.outcome() == Decision.Outcome.HOLD ? reason(last) : "HELD";
        return LogLine.of("held", text).host(host.key()).reason(reason);
    }

    /** The exception's message speaks to the application, so it names the agent; the log's lines name it already. */
    static String withoutPrefix(String message) {
        String prefix = AgentLog.NAME + ": ";
        return message != null && message.startsWith(prefix) ? message.substring(prefix.length()) : String.valueOf(message);
    }

    // ---- waits

    /** The application ended a request while it waited: the host's summary counts it (a watchdog shorter than the waits). */
    @Override
    public void onEndedWhileWaiting(HostState host) {
        HostMinute minute = minute(host);
        synchronized (minute) {
            minute.endedWhileWaiting++;
        }
    }

    /** A request's turn waited: one DEBUG line with each cause, as the engine named it, and the host's summary counts it. */
    @Override
    public void onTurnWaited(HostState host, WaitedTurn turn) {
        HostMinute minute = minute(host);
        long waited = turn.totalMillis();
        long pace = turn.millis(Reason.PACE);
        long queue = turn.millis(Reason.QUEUE_AT_CAP);
        long hints = turn.millis(Reason.RATE_LIMIT_HINTS);
        long refusal = turn.refusalMillis();
        synchronized (minute) {
            minute.requestsWaited++;
            minute.waitedMillis += waited;
            minute.paceMillis += pace;
            minute.refusalMillis += refusal;
            minute.queueMillis += queue;
            minute.hintsMillis += hints;
            for (Wait part : turn.parts()) {
                if (part.reason().isRefusalWait()) {
                    minute.refusalCause = part.reason().name();
                }
            }
        }
        if (!log.isDebugEnabled()) {
            return;
        }
        HostSnapshot now = host.snapshot(clock.millis());
        List<Wait> parts = turn.parts();
        List<String> said = new ArrayList<>(parts.size());
        for (Wait part : parts) {
            said.add(part(words(part.reason(), now), part.millis(), parts.size(), part.reason().name()));
        }
        Reason main = turn.mainCause();
        String text = host.key() + " waited " + String.format(Locale.ROOT, "%.2f s", waited / 1000.0) + ": " + String.join(", then ", said);
        log.debug(LogLine.of("wait", text).host(host.key()).reason(main == null ? null : main.name()).figure("waitedMillis", waited)
                .figure("paceMillis", pace).figure("refusalWaitMillis", refusal)
                .figure("queueMillis", queue).figure("hintsMillis", hints)
                .figure("pacePerMinute", now.pacePerMinute()).figure("maxConcurrency", now.maxConcurrency));
    }

    /** A cause in plain words, with the figure behind it: "pace 9.3/min", "queued at the cap of 2 in flight". */
    private static String words(Reason cause, HostSnapshot now) {
        switch (cause) {
            case PACE:
                return String.format(Locale.ROOT, "pace %.1f/min", now.pacePerMinute());
            case QUEUE_AT_CAP:
                return "queued at the cap of " + now.maxConcurrency + " in flight";
            case RATE_LIMIT_HINTS:
                return cause.text();
            default:
                return Reason.REFUSAL_WAIT.text();
        }
    }

    /** "pace 9.3/min [PACE]", or with its own seconds when the wait had several parts. */
    private static String part(String words, long millis, int parts, String name) {
        return words + (parts > 1 ? String.format(Locale.ROOT, " %.2f s", millis / 1000.0) : "") + " [" + name + "]";
    }

    private String refusalReason(HostState host) {
        Decision last = lastDecisions.get(host.key());
        return last != null ? reason(last) : Reason.REFUSAL_WAIT.name(); // another JVM's refusal, in a fleet
    }

    @Override
    public void onObservedTurn(HostState host, ObservedTurn turn) {
        HostMinute minute = minute(host);
        HostHeldException held = turn.wouldFailFast();
        if (held != null) {
            synchronized (minute) {
                minute.wouldFailFast++;
            }
            Long before = loggedHolds.put(host.key(), held.untilMillis());
            LogLine line = heldLine(host, "would fail fast: " + withoutPrefix(held.getMessage())
                    + "; later requests would fail the same way until then (observe mode: sent; counted in the report)");
            if (before == null || before != held.untilMillis()) {
                log.warn(line);
            } else {
                log.debug(line);
            }
            return;
        }
        long wait = turn.wouldWaitMillis();
        WaitedTurn would = turn.wouldWait();
        long refusalPart = would.refusalMillis();
        long pacePart = would.millis(Reason.PACE);
        synchronized (minute) {
            if (wait > 0) {
                minute.wouldWaitRequests++;
                minute.wouldWaitMillis += wait;
                minute.wouldRefusalMillis += refusalPart;
                minute.wouldPaceMillis += pacePart;
            }
            if (turn.wouldQueue()) {
                minute.wouldQueue++;
            }
        }
        Reason main = would.mainCause();
        String cause = main == null ? refusalReason(host) : main.name();
        StringBuilder text = new StringBuilder(host.key()).append(" request -> would ");
        if (turn.wouldQueue()) {
            text.append("queue for a permit (max-concurrency ").append(host.policy().maxConcurrency()).append(" in flight) [")
                    .append(Reason.QUEUE_AT_CAP.name()).append(']');
        }
        if (wait > 0) {
            text.append(turn.wouldQueue() ? ", then " : "").append("wait ").append(String.format(Locale.ROOT, "%.1fs", wait / 1000.0))
                    .append(" before sending [").append(cause).append(']');
        }
        text.append(" (observe mode: sent now)");
        LogLine line = LogLine.of("would-wait", text.toString()).host(host.key()).reason(wait > 0 ? cause : Reason.QUEUE_AT_CAP.name())
                .figure("wouldWaitMillis", wait).figure("wouldQueue", turn.wouldQueue()).figure("mode", Mode.OBSERVE.label());
        String kind = "turn " + (turn.wouldQueue() ? "queue " : "") + (wait > 0 ? (refusalPart >= pacePart ? "refusal" : "pace") : "");
        if (minute.firstOfKind(kind)) {
            log.info(line);
        } else {
            log.debug(line);
        }
    }

    // ---- the summary

    private HostMinute minute(HostState host) {
        HostMinute minute = minutes.get(host.key());
        if (minute == null) {
            HostMinute made = new HostMinute(host.key());
            minute = minutes.putIfAbsent(host.key(), made);
            if (minute == null) {
                minute = made;
            }
        }
        minute.host = host;
        startSummaries();
        return minute;
    }

    /** The first thing to summarise starts the timer: nothing of it on the start-up path. */
    private void startSummaries() {
        if (summaries.get() || !summaries.compareAndSet(false, true)) {
            return;
        }
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(new DaemonThreads("retry-after-agent-summary"));
        timer.scheduleAtFixedRate(new Runnable() {
            @Override
            public void run() {
                try {
                    summarise();
                } catch (Throwable t) {
                    AgentLog.failure("writing the per-host summary", t);
                }
            }
        }, summaryMillis, summaryMillis, TimeUnit.MILLISECONDS);
    }

    /** One INFO line for each host that was paced, refused or held since the last: what its requests waited for. */
    void summarise() {
        for (HostMinute minute : minutes.values()) {
            LogLine line;
            synchronized (minute) {
                if (!minute.anything()) {
                    continue;
                }
                line = summary(minute);
                minute.reset();
            }
            log.info(line);
        }
    }

    private LogLine summary(HostMinute m) {
        HostState host = m.host;
        HostSnapshot now = host.snapshot(clock.millis());
        String refusalReason = m.refusalCause != null ? m.refusalCause : refusalReason(host);
        boolean observed = m.observedRefusals > 0 || m.wouldWaitRequests > 0 || m.wouldQueue > 0 || m.wouldFailFast > 0;
        StringBuilder text = new StringBuilder(m.key);
        if (observed) {
            text.append(" (observe mode: nothing was held back)");
        }
        text.append(": ");
        text.append(now.pacePerSecond > 0 ? String.format(Locale.ROOT, "paced at %.1f/min; ", now.pacePerMinute()) : "");
        text.append("in the last ").append(summaryMillis == 60_000 ? "minute" : DecisionLine.duration(summaryMillis)).append(' ');
        List<String> said = new ArrayList<>(4);
        if (m.requestsWaited > 0) {
            said.add(m.requestsWaited + (m.requestsWaited == 1 ? " request" : " requests") + " waited " + HostMinute.seconds(m.waitedMillis)
                    + " in all (" + causes(m.paceMillis, m.refusalMillis, m.queueMillis, m.hintsMillis, now.maxConcurrency) + ")");
        }
        if (m.refusals > 0) {
            said.add(m.refusals + (m.refusals == 1 ? " refusal" : " refusals"));
        }
        if (m.failedFast > 0) {
            said.add(m.failedFast + (m.failedFast == 1 ? " request" : " requests") + " failed fast, the host being held");
        }
        if (m.endedWhileWaiting > 0) {
            said.add(m.endedWhileWaiting + (m.endedWhileWaiting == 1 ? " request" : " requests")
                    + " ended by the application while waiting (a cancel, an abort, an interrupt, or a timeout shorter than the waits)");
        }
        if (m.wouldWaitRequests > 0 || m.wouldQueue > 0) {
            said.add("enforce mode would have made " + m.wouldWaitRequests + " requests wait " + HostMinute.seconds(m.wouldWaitMillis)
                    + " in all (" + causes(m.wouldPaceMillis, m.wouldRefusalMillis, 0, 0, 0) + ")"
                    + (m.wouldQueue > 0 ? " and queued " + m.wouldQueue + " at the cap of " + now.maxConcurrency + " in flight" : ""));
        }
        if (m.observedRefusals > 0) {
            said.add(m.observedRefusals + (m.observedRefusals == 1 ? " refusal" : " refusals") + ": enforce mode would have retried "
                    + m.wouldRetry + " and given up on " + m.wouldGiveUp);
        }
        if (m.wouldFailFast > 0) {
            said.add(m.wouldFailFast + " requests would have failed fast, the host being held");
        }
        if (m.requestsWaited == 0 && m.wouldWaitRequests == 0 && m.endedWhileWaiting == 0) {
            said.add(0, "no request waited");
        }
        text.append(String.join("; ", said));
        return LogLine.of("summary", text.toString()).host(m.key).reason(m.mainCause(refusalReason))
                .figure("intervalMillis", summaryMillis).figure("pacePerMinute", now.pacePerMinute())
                .figure("requestsWaited", m.requestsWaited).figure("waitedMillis", m.waitedMillis)
                .figure("paceMillis", m.paceMillis).figure("refusalWaitMillis", m.refusalMillis)
                .figure("queueMillis", m.queueMillis).figure("hintsMillis", m.hintsMillis)
                .figure("refusals", m.refusals).figure("failedFast", m.failedFast).figure("endedWhileWaiting", m.endedWhileWaiting)
                .figure("mode", observed ? Mode.OBSERVE.label() : Mode.ENFORCE.label())
                .figure("wouldWaitRequests", observed ? m.wouldWaitRequests : null)
                .figure("wouldWaitMillis", observed ? m.wouldWaitMillis : null)
                .figure("wouldQueue", observed ? m.wouldQueue : null)
                .figure("observedRefusals", observed ? m.observedRefusals : null)
                .figure("wouldRetry", observed ? m.wouldRetry : null);
    }

    /** "pace 38.0 s, refusals' waits 3.0 s": the causes that took any time. */
    private static String causes(long pace, long refusal, long queue, long hints, int cap) {
        List<String> parts = new ArrayList<>(4);
        if (pace >= 50) { // what rounds to 0.0 s is not said
            parts.add("pace " + HostMinute.seconds(pace));
        }
        if (refusal >= 50) {
            parts.add("refusals' waits " + HostMinute.seconds(refusal));
        }
        if (queue >= 50) {
            parts.add("queue at the cap of " + cap + " in flight " + HostMinute.seconds(queue));
        }
        if (hints >= 50) {
            parts.add("rate-limit hints " + HostMinute.seconds(hints));
        }
        return parts.isEmpty() ? "each briefly" : String.join(", ", parts);
    }
}
