package dev.retryafter.agent.metrics;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The text formats, line by line: what promtool and a Prometheus server read (the integration test has them read it). */
class MetricsTextTest {

    @Test
    void aCounterIsNamedX_totalIn004AndXInOpenMetricsItsSamplesX_totalInBoth() {
        assertEquals("# HELP a_requests_total Requests sent\n"
                + "# TYPE a_requests_total counter\n"
                + "a_requests_total{host=\"h:1\"} 3\n",
                new MetricsText(false).family("a_requests", MetricsText.Type.COUNTER, "Requests sent").sample("host", "h:1", 3).finish());
        assertEquals("# HELP a_requests Requests sent\n"
                + "# TYPE a_requests counter\n"
                + "a_requests_total{host=\"h:1\"} 3\n"
                + "# EOF\n",
                new MetricsText(true).family("a_requests", MetricsText.Type.COUNTER, "Requests sent").sample("host", "h:1", 3).finish());
    }

    @Test
    void aGaugeIsNamedAsItIsWithNoLabelOneOrTwo() {
        assertEquals("# HELP a_held 1 while held\n"
                + "# TYPE a_held gauge\n"
                + "a_held 0\n"
                + "a_held{host=\"h:1\"} 1\n"
                + "a_held{host=\"h:1\",status=\"429\"} 1\n",
                new MetricsText(false).family("a_held", MetricsText.Type.GAUGE, "1 while held").sample(0).sample("host", "h:1", 1)
                        .sample("host", "h:1", "status", "429", 1).finish());
    }

    @Test
    void labelValuesEscapeBackslashQuoteAndLineFeedInBothFormats() {
        for (boolean openMetrics : new boolean[] {false, true}) {
            String page = new MetricsText(openMetrics).family("a_held", MetricsText.Type.GAUGE, "held")
                    .sample("host", "we\\ird\"host\nname:1", 1).finish();
            assertTrue(page.contains("a_held{host=\"we\\\\ird\\\"host\\nname:1\"} 1\n"), page);
        }
        StringBuilder plain = new StringBuilder();
        MetricsText.escapeLabelValue(plain, "data.kingcounty.gov:443");
        assertEquals("data.kingcounty.gov:443", plain.toString());
        StringBuilder unicode = new StringBuilder();
        MetricsText.escapeLabelValue(unicode, "bücher.example:443");
        assertEquals("bücher.example:443", unicode.toString(), "UTF-8 is written as it is");
    }

    @Test
    void helpEscapesBackslashAndLineFeedAndInOpenMetricsTheQuoteToo() {
        assertEquals("# HELP a_x a \\\\ b \\n c \"d\"\n# TYPE a_x gauge\na_x 1\n",
                new MetricsText(false).family("a_x", MetricsText.Type.GAUGE, "a \\ b \n c \"d\"").sample(1).finish());
        assertEquals("# HELP a_x a \\\\ b \\n c \\\"d\\\"\n# TYPE a_x gauge\na_x 1\n# EOF\n",
                new MetricsText(true).family("a_x", MetricsText.Type.GAUGE, "a \\ b \n c \"d\"").sample(1).finish());
    }

    @Test
    void aFamilyWithNoSampleSaysNothing() {
        assertEquals("# HELP a_v v\n# TYPE a_v gauge\na_v 1\n",
                new MetricsText(false).family("a_none", MetricsText.Type.COUNTER, "none").family("a_v", MetricsText.Type.GAUGE, "v")
                        .sample(1).family("a_none_either", MetricsText.Type.GAUGE, "none").finish());
    }

    @Test
    void valuesWholeAsIntegersOthersAsJavaWritesThemAndTheSpecialOnes() {
        MetricsText text = new MetricsText(false).family("a_v", MetricsText.Type.GAUGE, "v");
        text.sample(0).sample(12).sample(-3).sample(0.947).sample(1.5e-4).sample(1e20).sample(Double.NaN)
                .sample(Double.POSITIVE_INFINITY).sample(Double.NEGATIVE_INFINITY);
        assertEquals("# HELP a_v v\n# TYPE a_v gauge\n"
                + "a_v 0\na_v 12\na_v -3\na_v 0.947\na_v 1.5E-4\na_v 1.0E20\na_v NaN\na_v +Inf\na_v -Inf\n", text.finish());
    }

    @Test
    void openMetricsOnlyWhenTheScraperPrefersIt() {
        // What Prometheus 2.x sends by default
        assertTrue(MetricsText.prefersOpenMetrics("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
                + "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
        // Prometheus with scrape_classic... or an older one, curl, promtool's fetch
        assertFalse(MetricsText.prefersOpenMetrics("text/plain;version=0.0.4;q=1,*/*;q=0.1"));
        assertFalse(MetricsText.prefersOpenMetrics("*/*"));
        assertFalse(MetricsText.prefersOpenMetrics(null));
        assertFalse(MetricsText.prefersOpenMetrics("application/openmetrics-text;q=0"));
        assertFalse(MetricsText.prefersOpenMetrics("application/openmetrics-text;q=0.4, text/plain;q=0.9"));
        assertTrue(MetricsText.prefersOpenMetrics("Application/OpenMetrics-Text; version=1.0.0"));
        assertFalse(MetricsText.prefersOpenMetrics("application/openmetrics-text;q=nonsense"));
    }

    @Test
    void contentTypes() {
        assertEquals("text/plain; version=0.0.4; charset=utf-8", new MetricsText(false).contentType());
        assertEquals("application/openmetrics-text; version=1.0.0; charset=utf-8", new MetricsText(true).contentType());
    }
}
