package gluelab.table;

import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The one formatter: each format, a unit per column chosen from its values, caveats first, CSV as raw data. */
class TableFormatTest {
    static final Column LOAD = Column.time("load", "cache load");

    static DataTable sample() {
        return DataTable.builder("swiglu", Columns.OP, Columns.TOKENS, Columns.MEASURED, LOAD, Columns.PEAK_MEM, Columns.NOISE_PCT, Columns.NOISY)
                .row("swiglu", 4096L, 1_379_664.1, 75.14, 4_831_838_208L, 0.1234, "")
                .row("rmsnorm", 128L, 133_328.6, 12.0, 67_108_864L, 3.456, "noise 3.5% over the 0.5% bound")
                .build();
    }

    @Test void eachTimeColumnPicksItsOwnUnitAndSaysItInTheHeader() {
        Table t = TableFormat.tablesaw(sample());
        assertTrue(t.columnNames().contains("measured (ms)"), t.columnNames().toString());
        assertTrue(t.columnNames().contains("load (us)"), "a column of small times stays in us: " + t.columnNames());
        assertEquals(1380.0, t.doubleColumn("measured (ms)").get(0), "1379664.1 us reads 1380 ms");
        assertEquals(133.3, t.doubleColumn("measured (ms)").get(1));
        assertEquals(75.1, t.doubleColumn("load (us)").get(0));
    }

    @Test void bytesAreWrittenInOneBinaryUnitPerColumn() {
        Table t = TableFormat.tablesaw(sample());
        assertEquals(4.5, t.doubleColumn("peak_mem (GiB)").get(0));
        assertEquals(0.0625, t.doubleColumn("peak_mem (GiB)").get(1), "a small neighbour keeps three significant digits");
    }

    @Test void aCaveatThatSaysSomethingComesFirstInEveryFormat() {
        DataTable d = sample();
        assertEquals("noisy", TableFormat.tablesaw(d).columnNames().getFirst());
        assertTrue(TableFormat.markdown(d).startsWith("| noisy | op |"), TableFormat.markdown(d));
        String html = TableFormat.html(d);
        assertTrue(html.indexOf(">noisy<") < html.indexOf(">op<"), html);
        assertTrue(html.contains("white-space:normal") && html.contains("noise 3.5% over the 0.5% bound"), "long caveats wrap: " + html);
        DataTable sound = DataTable.builder("sound", Columns.OP, Columns.NOISY).row("cat", "").build();
        assertEquals(List.of("op", "noisy"), TableFormat.tablesaw(sound).columnNames(), "an empty caveat stays in place");
        assertEquals(List.of("op"), TableFormat.tablesaw(sound.withoutEmpty(Columns.NOISY)).columnNames());
    }

    @Test void markdownHasAHeaderAlignmentAndRoundedCells() {
        String md = TableFormat.markdown(sample());
        List<String> lines = md.lines().toList();
        assertEquals(4, lines.size(), md);
        assertEquals("|---|---|---:|---:|---:|---:|---:|", lines.get(1), "text left, numbers right");
        assertTrue(lines.get(2).contains("| 1380 |") && lines.get(2).contains("| 0.12 |"), "noise to two significant digits: " + md);
    }

    @Test void htmlEscapesAndBreaksHeadersAtUnderscores() {
        DataTable d = DataTable.builder("a <b>", Columns.OP, Columns.PCT_OF_FLOOR).row("x<y", 94.04).build();
        String html = TableFormat.html(d);
        assertTrue(html.contains("<b>a &lt;b&gt;</b>") && html.contains("x&lt;y"), html);
        assertTrue(html.contains("<th>pct_<wbr>of_<wbr>floor</th>") && html.contains("<td>94</td>"), html);
        Table many = TableFormat.tablesaw(DataTable.builder("n", Columns.TOKENS).row(1L).row(2L).row(3L).build());
        assertTrue(TableFormat.html(many, 2).endsWith("<p>1 more rows</p>"), TableFormat.html(many, 2));
    }

    @Test void csvIsTheRawDataInBaseUnits() {
        List<String> lines = TableFormat.csv(sample()).lines().toList();
        assertEquals("op,tokens,measured_us,load_us,peak_mem_bytes,noise_pct,noisy", lines.get(0));
        assertTrue(lines.get(1).startsWith("swiglu,4096,1379664.1,75.14,4.831838208E9,"), lines.get(1));
        assertTrue(lines.get(2).endsWith(",noise 3.5% over the 0.5% bound"), lines.get(2));
        String quoted = TableFormat.csv(DataTable.builder("q", Columns.OP).row("a, \"b\"").build());
        assertEquals("\"a, \"\"b\"\"\"", quoted.lines().toList().get(1), "RFC 4180 quoting");
    }

    @Test void timestampsAreToTheSecond() {
        DataTable d = DataTable.builder("steps", Columns.FINISHED).row(Instant.parse("2026-12-01T22:49:40.123456789Z")).row("2026-12-01T22:50:01.5Z").row((Object) null).build();
        assertEquals(List.of("2026-12-01T22:49:40Z", "2026-12-01T22:50:01Z", ""), TableFormat.tablesaw(d).stringColumn("finished").asList());
    }

    @Test void aValueOfTheWrongUnitOrARowOfTheWrongLengthIsRefusedNamingTheColumn() {
        var b = DataTable.builder("t", Columns.OP, Columns.MEASURED);
        var e = assertThrows(IllegalArgumentException.class, () -> b.row("x", "12 us"));
        assertTrue(e.getMessage().contains("column measured"), e.getMessage());
        var n = assertThrows(IllegalArgumentException.class, () -> b.row("x"));
        assertTrue(n.getMessage().contains("1 values for 2 columns"), n.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DataTable.builder("t", Columns.OP, Columns.OP));
    }

    @Test void everyVocabularyNameIsSpelledOnceAndDescribed() {
        assertEquals(Columns.ALL.size(), Columns.ALL.stream().map(Column::name).distinct().count());
        for (Column c : Columns.ALL) assertFalse(c.description().isBlank(), c.name());
        assertTrue(Columns.isCaveat("noisy") && Columns.isCaveat("caveat") && !Columns.isCaveat("op"));
    }

    @Test void aRoundedValueIsShownAsItIsAndARawDoubleWithoutFloatNoise() {
        assertEquals("150.66", DisplayNumbers.cell(150.66));
        assertEquals("0.0000000701", DisplayNumbers.cell(7.01e-8));
        assertEquals("0.3", DisplayNumbers.cell(0.1 + 0.2));
        assertEquals("3.142", DisplayNumbers.cell(Math.PI));
    }

    /** Tablesaw centres a title over the table's width; a wide table's title went a screen to the right. */
    @Test void textPutsTheTitleAtTheLeft() {
        Table t = TableFormat.tablesaw(sample());
        String text = TableFormat.text(t);
        assertEquals("swiglu", text.lines().findFirst().orElseThrow());
        assertTrue(t.printAll().lines().findFirst().orElseThrow().startsWith(" "), "Tablesaw's own centres it: " + t.printAll());
        assertEquals(t.printAll().lines().skip(1).toList(), text.lines().skip(1).toList(), "the columns as Tablesaw prints them");
        assertEquals("swiglu", TableFormat.text(t, 1).lines().findFirst().orElseThrow());
    }

    @Test void fitCutsTheMiddleOfALongNameToTheWidth() {
        assertEquals("aten::mm", TableFormat.fit("aten::mm", 12));
        String cut = TableFormat.fit("aten::_scaled_dot_product_flash_attention_for_cpu_backward", 28);
        assertEquals(28, cut.length());
        assertEquals("aten::_scaled...cpu_backward", cut);
        assertThrows(IllegalArgumentException.class, () -> TableFormat.fit("x", 4));
    }
}
