package dev.retryafter.demo.scraper;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one line the legacy scraper ends with, and how to read it back:
 * {@code RESULT client=jdk records=100 fetched=100 refused=0 failed=0 elapsedMillis=1234}.
 * Refused: the application saw a refusal (a lost record); failed: it saw an exception.
 */
public final class ScraperResult {

    private static final Pattern LINE = Pattern.compile(
            "RESULT client=(\\S+) records=(\\d+) fetched=(\\d+) refused=(\\d+) failed=(\\d+) elapsedMillis=(\\d+)");
    private static final Pattern FAILURE = Pattern.compile("(?m)^FAILURE (.*)$");
    /** What a scraper that could not start prints, before why: an unknown client, or one its Java cannot run. */
    static final String ERROR = "ERROR ";
    private static final Pattern ERROR_LINE = Pattern.compile("(?m)^" + ERROR + "(.*)$");

    public final String client;
    public final int records;
    public final int fetched;
    public final int refused;
    public final int failed;
    public final long elapsedMillis;
    /** The first exception the scraper saw, or null. */
    public final String firstFailure;

    ScraperResult(String client, int records, int fetched, int refused, int failed, long elapsedMillis, String firstFailure) {
        this.client = client;
        this.records = records;
        this.fetched = fetched;
        this.refused = refused;
        this.failed = failed;
        this.elapsedMillis = elapsedMillis;
        this.firstFailure = firstFailure;
    }

    /** Reads the scraper's output; throws if it printed no result line, with the scraper's own one line if it could not start. */
    public static ScraperResult parse(String stdout) {
        Matcher m = LINE.matcher(stdout);
        if (!m.find()) {
            Matcher error = ERROR_LINE.matcher(stdout);
            if (error.find()) {
                throw new IllegalArgumentException(error.group(1));
            }
            throw new IllegalArgumentException("the scraper printed no RESULT line:\n" + stdout);
        }
        Matcher failure = FAILURE.matcher(stdout);
        return new ScraperResult(m.group(1), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
                Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)), Long.parseLong(m.group(6)),
                failure.find() ? failure.group(1) : null);
    }

    /** What the scraper prints. */
    String lines() {
        return (firstFailure == null ? "" : "FAILURE " + firstFailure + "\n")
                + "RESULT client=" + client + " records=" + records + " fetched=" + fetched + " refused=" + refused
                + " failed=" + failed + " elapsedMillis=" + elapsedMillis;
    }
}
