package gluelab.units;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReadableNumbersTest {
    @Test void theScaleChangesAtTenMillisecondsAndTenSeconds() {
        assertEquals(TimeScale.US, TimeScale.forMax(9_999.9));
        assertEquals(TimeScale.MS, TimeScale.forMax(10_000));
        assertEquals(TimeScale.MS, TimeScale.forMax(9_999_999));
        assertEquals(TimeScale.S, TimeScale.forMax(10_000_000));
        assertEquals(TimeScale.US, TimeScale.forMax(0));
    }

    @Test void aGroupTakesTheUnitOfItsLargestValueAndIgnoresWhatIsNotANumber() {
        assertEquals(TimeScale.MS, TimeScale.of(12.4, 157_200, Double.NaN, Double.POSITIVE_INFINITY));
        assertEquals(TimeScale.US, TimeScale.of(Double.NaN));
        assertEquals(TimeScale.US, TimeScale.of());
        assertEquals("1380 ms", TimeScale.of(1_379_664.1, 133_328.6).format(1_379_664.1));
        assertEquals("133.3 ms", TimeScale.of(1_379_664.1, 133_328.6).format(133_328.6));
    }

    @Test void mixedMagnitudesInOneGroupShareOneUnit() {
        TimeScale s = TimeScale.of(157_200, 12_400, 9_745, 1_216);
        assertEquals("157.2 -> 12.4 ms", Micros.pair(Micros.of(157_200), " -> ", Micros.of(12_400), s));
        assertEquals("9.75 -> 1.22 ms", Micros.pair(Micros.of(9_745), " -> ", Micros.of(1_216), s));
        assertEquals("9745 -> 1216 us", Micros.pair(Micros.of(9_745), " -> ", Micros.of(1_216)), "a pair alone takes its own larger value's unit");
    }

    @Test void singleTimesReadInTheirOwnUnit() {
        assertEquals("75.1 us", Micros.of(75.1).toString());
        assertEquals("1089 us", Micros.of(1089).toString());
        assertEquals("240.1 ms", Micros.of(240_100).toString());
        assertEquals("13.8 s", Micros.of(13_800_000).toString());
        assertEquals("0.531 us", Micros.of(0.531).toString());
    }

    @Test void notANumberIsShownAsADashAndCellsAsEmpty() {
        assertEquals("-", TimeScale.MS.format(Double.NaN));
        assertEquals("-", TimeScale.US.format(Double.POSITIVE_INFINITY));
        assertEquals("-", Numbers.readable(Double.NEGATIVE_INFINITY));
        assertEquals(Double.NaN, TimeScale.MS.cell(Double.POSITIVE_INFINITY));
        assertThrows(IllegalArgumentException.class, () -> Micros.of(Double.POSITIVE_INFINITY));
        assertThrows(IllegalArgumentException.class, () -> Micros.of(Double.NaN));
    }

    @Test void cellsAndHeadersCarryTheColumnsUnit() {
        TimeScale s = TimeScale.of(472.1, 14_781.9);
        assertEquals("eager (ms)", s.header("eager"));
        assertEquals(14.8, s.cell(14_781.9));
        assertEquals(0.472, s.cell(472.1));
        assertEquals(1.22, s.cell(1_216));
        assertEquals(1380, TimeScale.MS.cell(1_379_664.1));
    }

    @Test void bytesReadInBinaryUnits() {
        assertEquals("0 B", Numbers.bytes(0));
        assertEquals("1023 B", Numbers.bytes(1023));
        assertEquals("1.00 KiB", Numbers.bytes(1024));
        assertEquals("1.50 KiB", Numbers.bytes(1536));
        assertEquals("1.00 MiB", Numbers.bytes(1024 * 1024 - 1), "rounding up to 1024 KiB moves to the next unit");
        assertEquals("4.50 GiB", Numbers.bytes(4_831_838_208L));
        assertEquals("17.5 MiB", Numbers.bytes(18_350_080));
        assertEquals("512 MiB", Numbers.bytes(512L << 20));
        assertThrows(IllegalArgumentException.class, () -> Numbers.bytes(-1));
    }

    @Test void timestampsStopAtTheSecond() {
        assertEquals("2026-12-01T22:49:40Z", Numbers.timestamp(Instant.parse("2026-12-01T22:49:40.123456789Z")));
    }
}
