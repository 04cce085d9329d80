package dev.retryafter.agent.metrics;

/**
 * Writes metric families in Prometheus's text exposition format 0.0.4, or in OpenMetrics 1.0 text
 * when the scraper asks for it. The two differ where this class hides it: a counter's family is
 * named {@code x_total} in 0.0.4 and {@code x} in OpenMetrics (its samples are {@code x_total} in
 * both), OpenMetrics escapes quotes in HELP too and ends with {@code # EOF}. Label values are
 * escaped in both ({@code \\}, {@code \"}, {@code \n}); names are the caller's constants.
 */
final class MetricsText {

    /** What a Prometheus server or promtool reads when it does not ask for OpenMetrics. */
    static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPEN_METRICS_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    enum Type {
        COUNTER("counter"),
        GAUGE("gauge");

        final String word;

        Type(String word) {
            this.word = word;
        }
    }

    private final StringBuilder out = new StringBuilder(4_096);
    private final boolean openMetrics;
    /** The current family's sample name. */
    private String sampleName;
    /** The current family's HELP and TYPE lines until its first sample writes them: a family with no sample says nothing. */
    private String pendingFamily;

    MetricsText(boolean openMetrics) {
        this.openMetrics = openMetrics;
    }

    boolean isOpenMetrics() {
        return openMetrics;
    }

    String contentType() {
        return openMetrics ? OPEN_METRICS_TYPE : PROMETHEUS_TYPE;
    }

    /**
     * Starts a family: its HELP and TYPE lines, written with its first sample; none, when it has none.
     * {@code name} is the family's name without the {@code _total} a counter's samples end with.
     */
    MetricsText family(String name, Type type, String help) {
        sampleName = type == Type.COUNTER ? name + "_total" : name;
        String familyName = type == Type.COUNTER && !openMetrics ? sampleName : name;
        StringBuilder lines = new StringBuilder(familyName.length() * 2 + help.length() + 32);
        lines.append("# HELP ").append(familyName).append(' ');
        escapeHelp(lines, help);
        lines.append('\n');
        lines.append("# TYPE ").append(familyName).append(' ').append(type.word).append('\n');
        pendingFamily = lines.toString();
        return this;
    }

    /** Starts a sample line of the current family, after the family's own lines if it is its first. */
    private void startSample() {
        if (pendingFamily != null) {
            out.append(pendingFamily);
            pendingFamily = null;
        }
        out.append(sampleName);
    }

    /** A sample of the current family without labels. */
    MetricsText sample(double value) {
        startSample();
        out.append(' ');
        value(value);
        out.append('\n');
        return this;
    }

    /** A sample of the current family with one label. */
    MetricsText sample(String label, String labelValue, double value) {
        startSample();
        out.append('{');
        label(label, labelValue);
        out.append("} ");
        value(value);
        out.append('\n');
        return this;
    }

    /** A sample of the current family with two labels. */
    MetricsText sample(String label, String labelValue, String label2, String labelValue2, double value) {
        startSample();
        out.append('{');
        label(label, labelValue);
        out.append(',');
        label(label2, labelValue2);
        out.append("} ");
        value(value);
        out.append('\n');
        return this;
    }

    /** The page: OpenMetrics's ends with {@code # EOF}. */
    String finish() {
        if (openMetrics) {
            out.append("# EOF\n");
        }
        return out.toString();
    }

    private void label(String name, String value) {
        out.append(name).append("=\"");
        escapeLabelValue(out, value);
        out.append('"');
    }

    /** {@code \\}, {@code \"} and {@code \n}, as both formats escape a label value. */
    static void escapeLabelValue(StringBuilder out, String value) {
        escape(out, value, true);
    }

    /** 0.0.4 escapes a backslash and a line feed in HELP; OpenMetrics a double quote as well. */
    private void escapeHelp(StringBuilder out, String help) {
        escape(out, help, openMetrics);
    }

    private static void escape(StringBuilder out, String text, boolean quotes) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '"' && quotes) {
                out.append("\\\"");
            } else {
                out.append(c);
            }
        }
    }

    /** Whole numbers without a fraction, others as Java writes them (both formats read {@code 1.5E-4}); NaN, +Inf, -Inf. */
    private void value(double value) {
        if (Double.isNaN(value)) {
            out.append("NaN");
        } else if (Double.isInfinite(value)) {
            out.append(value > 0 ? "+Inf" : "-Inf");
        } else if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            out.append((long) value);
        } else {
            out.append(value);
        }
    }

    /**
     * Whether the scraper's {@code Accept} header prefers OpenMetrics: it names
     * {@code application/openmetrics-text} with a quality above zero and no lower than the plain
     * text's. Anything else, no header included, gets 0.0.4.
     */
    static boolean prefersOpenMetrics(String accept) {
        if (accept == null) {
            return false;
        }
        double openMetrics = 0;
        double plain = 0;
        for (String range : accept.split(",")) {
            String[] parts = range.split(";");
            String type = parts[0].trim().toLowerCase(java.util.Locale.ROOT);
            double quality = 1;
            for (int i = 1; i < parts.length; i++) {
                String parameter = parts[i].trim();
                if (parameter.startsWith("q=")) {
                    try {
                        quality = Double.parseDouble(parameter.substring(2).trim());
                    } catch (NumberFormatException e) {
                        quality = 0;
                    }
                }
            }
            if (type.equals("application/openmetrics-text")) {
                openMetrics = Math.max(openMetrics, quality);
            } else if (type.equals("text/plain")) {
                plain = Math.max(plain, quality);
            }
        }
        return openMetrics > 0 && openMetrics >= plain;
    }
}
