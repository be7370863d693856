package gluelab.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** On CSVs that ncu 2025.3 wrote on an H200 (see src/test/resources/ncu/README.md), then on broken ones. */
class NcuReportTest {
    static Path resource(String name) throws Exception {
        return Path.of(NcuReportTest.class.getResource("/ncu/" + name).toURI());
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200_raw_metrics.csv", "h200_raw_metrics_base.csv"})
    void rawPageWithMetricsKeepsTextColumnsAsText(String file) throws Exception {
        // device__attribute_confidential_computing_mode is "No-CC", launch__func_cache_config "CachePreferNone"
        List<NcuReport.Launch> l = NcuReport.read(resource(file), null);
        assertEquals(4, l.size());
        assertEquals("void scale_copy<float, 4>(const T1 *, T1 *, long, T1)", l.get(2).kernel());
        assertEquals("spin(long long, int *)", l.get(3).kernel());
        assertEquals("NVIDIA H200", l.get(2).device());
        NcuReport.Launch big = l.get(2); // 1 GiB read, 1 GiB written
        assertTrue(big.dramRead() > 1.0e9 && big.dramWrite() > 1.0e9, big.toString());
        assertTrue(big.timeUs() > 300 && big.timeUs() < 1000, big.toString());
        assertEquals((big.dramRead() + big.dramWrite()) / (big.timeUs() * 1e3), big.achievedGBs(), 1e-9);
        assertTrue(big.pctOfPeak() > 50 && big.pctOfPeak() < 100, "ncu's own DRAM % of peak: " + big);
        assertEquals(100 * big.achievedGBs() * 1e9 / 4.8e12, NcuReport.read(resource(file), 4.8e12).get(2).pctOfPeak(), 1e-9);
        assertTrue(l.get(3).timeUs() > 1000, "the spin kernel runs for milliseconds: " + l.get(3));
    }

    @Test
    void rawPageOfTheSpeedOfLightSection() throws Exception {
        List<NcuReport.Launch> l = NcuReport.read(resource("h200_raw_sol.csv"), null);
        assertEquals(4, l.size());
        assertTrue(l.get(2).timeUs() > 300, l.get(2).toString());
        assertTrue(l.get(2).pctOfPeak() > 50, l.get(2).toString());
        assertTrue(Double.isNaN(l.get(2).achievedGBs()), "the section records no DRAM bytes");
    }

    @ParameterizedTest
    @ValueSource(strings = {"h200_details_sol.csv", "h200_details_sol_base.csv"})
    void detailsPageOfTheSpeedOfLightSection(String file) throws Exception {
        // metric rows stop after Metric Value (16 fields under a 20-column header); rule rows have no metric
        List<NcuReport.Launch> l = NcuReport.read(resource(file), null);
        assertEquals(4, l.size());
        assertEquals(List.of(0, 1, 2, 3), l.stream().map(NcuReport.Launch::id).toList());
        assertTrue(l.get(3).timeUs() > 1000, l.get(3).toString());
        assertTrue(l.get(2).pctOfPeak() > 50, l.get(2).toString());
        assertTrue(Double.isNaN(l.get(2).dramRead()));
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "ns;1;TIME_NS", "nsecond;1;TIME_NS", "usecond;1e3;TIME_NS", "msecond;1e6;TIME_NS", "second;1e9;TIME_NS", "us;1e3;TIME_NS",
            "byte;1;BYTES", "Kbyte;1e3;BYTES", "Mbyte;1e6;BYTES", "Gbyte;1e9;BYTES", "Tbyte;1e12;BYTES", "KiB;1024;BYTES",
            "MiB;1048576;BYTES", "GiB;1073741824;BYTES", "KB;1e3;BYTES",
            "byte/second;1;BYTES_PER_SECOND", "Gbyte/second;1e9;BYTES_PER_SECOND", "Tbyte/second;1e12;BYTES_PER_SECOND",
            "Mbyte/usecond;1e12;BYTES_PER_SECOND", "hz;1;HERTZ", "Ghz;1e9;HERTZ", "Mhz;1e6;HERTZ", "cycle/nsecond;1e9;HERTZ",
            "cycle/usecond;1e6;HERTZ", "%;1;PERCENT", "cycle;1;COUNT", "Kcycle;1e3;COUNT", "inst;1;COUNT", "warp;1;COUNT",
            "sector;1;COUNT", "byte/block;1;COUNT", "register/thread;1;COUNT", "inst/cycle;1;COUNT", "inst/second;1;COUNT_PER_SECOND"})
    void everyUnitNcuPrintsConvertsToItsBase(String unit, double factor, NcuUnit.Dimension dimension) {
        NcuUnit u = NcuUnit.parse(unit);
        assertEquals(dimension, u.dimension(), unit);
        assertEquals(factor, u.toBase(), factor * 1e-12, unit);
    }

    @ParameterizedTest
    @ValueSource(strings = {"furlong", "Xbyte", "byte/%", "second/byte", "b", "Mb", "msec"})
    void unknownUnitsAreRefusedByName(String unit) {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NcuUnit.parse(unit)).getMessage().contains("unknown unit '" + unit + "'"));
    }

    @Test
    void scaledUnitsOnTheDetailsPage(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("auto.csv"), """
                "ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"
                "0","k","GPU Speed Of Light Throughput","Duration","msecond","1.50"
                "0","k","Command line profiler metrics","dram__bytes_read.sum","Gbyte","1.20"
                "0","k","Command line profiler metrics","dram__bytes_write.sum","MiB","1,024"
                "0","k","Memory Workload Analysis","DRAM Throughput","Tbyte/second","2.1"
                """);
        NcuReport.Launch l = NcuReport.read(f, null).getFirst();
        assertEquals(1500, l.timeUs(), 1e-9);
        assertEquals(1.2e9, l.dramRead(), 1e-3);
        assertEquals(0x1p30, l.dramWrite(), 1e-3);
        assertEquals((1.2e9 + 0x1p30) / 1.5e6, l.achievedGBs(), 1e-9);
    }

    @Test
    void badInputNamesFileAndLine(@TempDir Path dir) throws Exception {
        String header = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\"\n";
        assertMessage(dir, "short.csv", header + "\"0\",\"k\",\"5\"\n", "short.csv:2", "3 fields");
        assertMessage(dir, "unit.csv", header + "\"\",\"\",\"furlong\",\"byte\"\n\"0\",\"k\",\"5\",\"7\"\n", "unit.csv:2", "gpu__time_duration.sum", "unknown unit 'furlong'");
        assertMessage(dir, "zero.csv", header + "\"\",\"\",\"ns\",\"byte\"\n\"0\",\"k\",\"0\",\"4,096\"\n", "zero.csv:3", "duration of 0");
        assertMessage(dir, "neg.csv", header + "\"0\",\"k\",\"-5\",\"7\"\n", "neg.csv:2", "out of range");
        assertMessage(dir, "dim.csv", header + "\"\",\"\",\"byte\",\"byte\"\n\"0\",\"k\",\"5\",\"7\"\n", "dim.csv:3", "gpu__time_duration.sum is in 'byte'");
        assertMessage(dir, "empty.csv", header, "empty.csv", "no profiled launches");
        Path ok = Files.writeString(dir.resolve("ok.csv"), header + "\"0\",\"k\",\"5\",\"7\"\n");
        for (double peak : new double[]{0, -4.8e12, Double.NaN, Double.POSITIVE_INFINITY})
            assertTrue(assertThrows(IllegalArgumentException.class, () -> NcuReport.read(ok, peak)).getMessage().contains("must be a positive number"));
    }

    /** The probe's ncu inputs that were read as something else (issue 23). */
    @Test
    void decimalCommasHugeValuesAndPipesAreRefused(@TempDir Path dir) throws Exception {
        String header = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\"\n\"\",\"\",\"usecond\",\"byte\"\n";
        assertMessage(dir, "comma.csv", header + "\"0\",\"k\",\"523808,5\",\"7\"\n", "comma.csv:3", "'523808,5'", "decimal comma");
        assertMessage(dir, "time.csv", header + "\"0\",\"k\",\"1e308\",\"7\"\n", "time.csv:3", "out of range");
        assertMessage(dir, "bytes.csv", header + "\"0\",\"k\",\"5\",\"1e308\"\n", "bytes.csv:3", "dram__bytes_read.sum", "out of range for one launch");
        Path grouped = Files.writeString(dir.resolve("grouped.csv"), header + "\"0\",\"k\",\"1,523.5\",\"4,096\"\n");
        assertEquals(1523.5, NcuReport.read(grouped, null).getFirst().timeUs(), 1e-9);
        Path fifo = dir.resolve("pipe.csv");
        assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo is not available");
        String m = assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> assertThrows(IllegalArgumentException.class, () -> NcuReport.read(fifo, null))).getMessage();
        assertTrue(m.contains("pipe.csv") && m.contains("not a regular file"), m);
    }

    private static void assertMessage(Path dir, String name, String text, String... fragments) throws Exception {
        Path f = Files.writeString(dir.resolve(name), text);
        String m = assertThrows(IllegalArgumentException.class, () -> NcuReport.read(f, null)).getMessage();
        for (String s : fragments) assertTrue(m.contains(s), "missing '" + s + "' in: " + m);
    }
}
