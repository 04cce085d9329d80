package dev.retryafter.agent.engine.header;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RetryAfterParserTest {

    /** The guide's "now": 2026-11-01T00:00:00Z. */
    private static final long NOW = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();

    /** The guide's parsing table, as written: None is "no usable header". */
    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource(nullValues = "None", value = {
            "120, 120000",
            "0, 0",
            "'', None",
            "None, None",
            "banana, None",
            "'Wed, 21 Oct 2026 07:28:00 GMT', 0",   // a date in the past
    })
    void guideTable(String raw, Long expectedMillis) {
        RetryAfter parsed = RetryAfterParser.parse(raw, NOW);
        if (expectedMillis == null) {
            assertFalse(parsed.isUsable(), parsed.toString());
        } else {
            assertTrue(parsed.isUsable(), parsed.toString());
            assertEquals(expectedMillis, parsed.millis());
        }
    }

    @Test
    void absentIsNotTheSameAsUnusable() {
        assertEquals(RetryAfter.Form.ABSENT, RetryAfterParser.parse(null, NOW).form());
        assertEquals(RetryAfter.Form.UNUSABLE, RetryAfterParser.parse("soon", NOW).form());
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {" 120", "120 ", "\t120\t", " \t 120 \t "})
    void delaySecondsMayBeSurroundedByWhiteSpace(String raw) {
        RetryAfter parsed = RetryAfterParser.parse(raw, NOW);
        assertEquals(RetryAfter.Form.DELAY_SECONDS, parsed.form());
        assertEquals(120_000, parsed.millis());
    }

    @ParameterizedTest(name = "\"{0}\" is refused")
    @NullAndEmptySource
    @ValueSource(strings = {
            "   ", "banana", "-5", "+5", "1.5", "1e9", "0x10", "2, 3", "12 s", "5s", "\u0663", "\uff11\uff12",
            "1\u00a0", "\u00a01", "1 2",
            "Sun, 30 Feb 2026 08:49:37 GMT",    // no 30 February
            "Sun, 06 Nov 1994 24:00:00 GMT",    // no hour 24
            "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Xyz, 06 Nov 1994 08:49:37 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT",     // IMF-fixdate has a two-digit day
            "Sun, 06 Nov 1994 08:49:37 +0000",
            "Sun, 06 Nov 1994 08:49:37",
            "Sunday, 31-Apr-94 08:49:37 GMT",
            "Sun Nov 31 08:49:37 1994",
            "2026-11-01T00:00:00Z",
    })
    void nonsenseIsNoUsableHeader(String raw) {
        assertFalse(RetryAfterParser.parse(raw, NOW).isUsable());
    }

    @Test
    void allThreeHttpDateFormatsNameTheSameMoment() {
        long now = Instant.parse("1994-11-06T08:49:00Z").toEpochMilli();
        for (String raw : new String[] {
                "Sun, 06 Nov 1994 08:49:37 GMT",    // IMF-fixdate
                "Sunday, 06-Nov-94 08:49:37 GMT",   // RFC 850
                "Sun Nov  6 08:49:37 1994",         // asctime
                "sun, 06 nov 1994 08:49:37 gmt",    // names without regard to case
        }) {
            RetryAfter parsed = RetryAfterParser.parse(raw, now);
            assertEquals(RetryAfter.Form.HTTP_DATE, parsed.form(), raw);
            assertEquals(37_000, parsed.millis(), raw);
        }
    }

    @Test
    void aDateInTheFutureIsTheTimeUntilIt() {
        assertEquals(3_600_000, RetryAfterParser.parse("Sun, 01 Nov 2026 01:00:00 GMT", NOW).millis());
    }

    @Test
    void aLeapSecondLandsOnTheNextMinute() {
        assertEquals(60_000, RetryAfterParser.parse("Sun, 01 Nov 2026 00:00:60 GMT", NOW).millis());
    }

    @Test
    void aTwoDigitYearMoreThanFiftyYearsAheadIsInThePast() {
        // In 2026, "76" would be 2076, exactly 50 years ahead: kept. "77" would be 2077: read as 1977.
        long now76 = RetryAfterParser.parse("Sunday, 01-Nov-76 00:00:00 GMT", NOW).millis();
        assertTrue(now76 > 0, "2076 is in the future");
        assertEquals(0, RetryAfterParser.parse("Monday, 01-Nov-77 00:00:00 GMT", NOW).millis(), "1977 is past");
        assertEquals(0, RetryAfterParser.parse("Wednesday, 21-Oct-26 07:28:00 GMT", NOW).millis());
    }

    @Test
    void aHugeNumberIsAVeryLongWaitNotAnOverflow() {
        RetryAfter parsed = RetryAfterParser.parse("99999999999999999999", NOW);
        assertTrue(parsed.isUsable());
        assertEquals(RetryAfterParser.MAX_SECONDS * 1000, parsed.millis());
        assertTrue(NOW + parsed.millis() > NOW, "now + wait must not overflow");
    }

    @Test
    void leadingZerosAreStillSeconds() {
        assertEquals(7_000, RetryAfterParser.parse("0007", NOW).millis());
    }

    @Test
    void randomStringsNeverThrow() {
        Random random = new Random(1234);
        String alphabet = "0123456789 \t,:-+.eExGMTSunNovWedOct\u0663\u00a0\"\\;=abc";
        for (int i = 0; i < 200_000; i++) {
            int length = random.nextInt(40);
            StringBuilder raw = new StringBuilder(length);
            for (int j = 0; j < length; j++) {
                raw.append(random.nextInt(10) == 0 ? (char) random.nextInt(0x3000) : alphabet.charAt(random.nextInt(alphabet.length())));
            }
            RetryAfter parsed = RetryAfterParser.parse(raw.toString(), NOW);
            assertTrue(parsed.millis() >= 0, raw::toString);
        }
    }

    @Test
    void mutatedValidDatesNeverThrow() {
        Random random = new Random(99);
        String valid = "Sun, 06 Nov 1994 08:49:37 GMT";
        for (int i = 0; i < 100_000; i++) {
            char[] chars = valid.toCharArray();
            chars[random.nextInt(chars.length)] = (char) (' ' + random.nextInt(95));
            RetryAfterParser.parse(new String(chars), NOW);
            RetryAfterParser.parse(new String(chars, 0, random.nextInt(chars.length)), NOW);
        }
    }
}
