package gluelab.trace;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.nio.file.Path;
import java.util.*;

/**
 * Nsight Compute CSV ({@code ncu --csv}), either page: "details" (one row per metric: Section Name,
 * Metric Name, Metric Unit, Metric Value; rule rows with no metric are skipped) or "raw" (one row per
 * launch, metrics as columns, a units row under the header). Lines ncu prints before the header
 * (program output, ==PROF==) are skipped. Cells are kept as text (device attributes, launch
 * settings such as {@code CachePreferNone}); only the metrics read here are parsed as numbers, in
 * the unit ncu printed ({@link NcuUnit}). Per launch: duration, DRAM bytes read and written,
 * achieved bandwidth and % of a given peak (else ncu's own DRAM % of peak).
 */
public final class NcuReport {
    public record Launch(int id, String kernel, String device, @JsonProperty("time_us") double timeUs,
                         @JsonProperty("dram_read_bytes") double dramRead, @JsonProperty("dram_write_bytes") double dramWrite,
                         @JsonProperty("achieved_gbs") double achievedGBs, @JsonProperty("pct_of_peak") double pctOfPeak) {}

    /** One metric cell of one launch, as ncu wrote it, with the line it is on (1-based). */
    private record Cell(String text, NcuUnit unit, int line) {}

    private static final String SOL = "GPU Speed Of Light Throughput: ";
    private static final List<String> TIME = List.of("gpu__time_duration.sum", "gpu__time_duration.avg", SOL + "Duration");
    private static final List<String> READ = List.of("dram__bytes_read.sum");
    private static final List<String> WRITE = List.of("dram__bytes_write.sum");
    private static final List<String> PCT = List.of("dram__throughput.avg.pct_of_peak_sustained_elapsed",
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", SOL + "DRAM Throughput");

    private NcuReport() {}

    /** @param peakBytesPerSecond peak DRAM bandwidth for the % column, or null for ncu's own % of peak */
    public static List<Launch> read(Path file, Double peakBytesPerSecond) {
        if (peakBytesPerSecond != null && !(peakBytesPerSecond > 0 && Double.isFinite(peakBytesPerSecond)))
            throw new IllegalArgumentException("peak bandwidth must be a positive number, got " + peakBytesPerSecond / 1e9 + " GB/s");
        List<String> lines = gluelab.files.TextInput.lines(file, "ncu CSV");
        int header = -1;
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith("\"ID\"")) { header = i; break; }
        if (header < 0) throw new IllegalArgumentException(file + ": no ncu CSV header (a line starting with \"ID\"); was it written with ncu --csv?");
        List<String> cols = split(lines.get(header), file, header);
        int idCol = cols.indexOf("ID"), nameCol = cols.indexOf("Kernel Name");
        if (nameCol < 0) throw new IllegalArgumentException(file + ":" + (header + 1) + ": no \"Kernel Name\" column");
        Map<Integer, Map<String, Cell>> launches = new TreeMap<>();
        Map<Integer, String> names = new HashMap<>();
        int metricName = cols.indexOf("Metric Name");
        if (metricName >= 0) readDetails(lines, header, cols, file, launches, names);
        else readRaw(lines, header, cols, file, launches, names);
        if (launches.isEmpty()) throw new IllegalArgumentException(file + ": no profiled launches under the header on line " + (header + 1));
        List<Launch> out = new ArrayList<>();
        for (var e : launches.entrySet()) out.add(launch(e.getKey(), names.get(e.getKey()), e.getValue(), peakBytesPerSecond, file));
        return out;
    }

    private static void readDetails(List<String> lines, int header, List<String> cols, Path file,
                                    Map<Integer, Map<String, Cell>> launches, Map<Integer, String> names) {
        int idCol = cols.indexOf("ID"), nameCol = cols.indexOf("Kernel Name"), sectionCol = cols.indexOf("Section Name");
        int metricCol = cols.indexOf("Metric Name"), unitCol = cols.indexOf("Metric Unit"), valueCol = cols.indexOf("Metric Value");
        if (unitCol < 0 || valueCol < 0)
            throw new IllegalArgumentException(file + ":" + (header + 1) + ": a details page needs \"Metric Unit\" and \"Metric Value\" columns");
        int needed = Math.max(Math.max(idCol, nameCol), Math.max(Math.max(metricCol, unitCol), valueCol)) + 1;
        for (int i = header + 1; i < lines.size(); i++) {
            if (!lines.get(i).startsWith("\"")) continue;
            List<String> row = split(lines.get(i), file, i);
            // ncu ends metric rows after Metric Value and leaves the rule columns off: fewer fields than the header is normal
            if (row.size() < needed) throw new IllegalArgumentException(file + ":" + (i + 1) + ": " + row.size() + " fields, expected at least " + needed);
            String metric = row.get(metricCol);
            if (metric.isEmpty()) continue; // a rule's advice row
            int id = parseId(row.get(idCol), file, i);
            names.put(id, row.get(nameCol));
            String key = metric.contains("__") || sectionCol < 0 ? metric : row.get(sectionCol) + ": " + metric;
            launches.computeIfAbsent(id, k -> new HashMap<>()).putIfAbsent(key, new Cell(row.get(valueCol), unit(row.get(unitCol), file, i, metric), i + 1));
        }
    }

    private static void readRaw(List<String> lines, int header, List<String> cols, Path file,
                                Map<Integer, Map<String, Cell>> launches, Map<Integer, String> names) {
        int idCol = cols.indexOf("ID"), nameCol = cols.indexOf("Kernel Name");
        List<String> units = header + 1 < lines.size() && lines.get(header + 1).startsWith("\"") ? split(lines.get(header + 1), file, header + 1) : List.of();
        boolean unitRow = units.size() > idCol && units.get(idCol).isEmpty();
        if (unitRow && units.size() != cols.size())
            throw new IllegalArgumentException(file + ":" + (header + 2) + ": units row has " + units.size() + " fields, the header " + cols.size());
        NcuUnit[] colUnits = new NcuUnit[cols.size()];
        for (int c = 0; c < cols.size(); c++) colUnits[c] = unitRow ? unit(units.get(c), file, header + 1, cols.get(c)) : NcuUnit.NONE;
        for (int i = header + (unitRow ? 2 : 1); i < lines.size(); i++) {
            if (!lines.get(i).startsWith("\"")) continue;
            List<String> row = split(lines.get(i), file, i);
            if (row.size() != cols.size()) throw new IllegalArgumentException(file + ":" + (i + 1) + ": " + row.size() + " fields, the header has " + cols.size());
            int id = parseId(row.get(idCol), file, i);
            names.put(id, row.get(nameCol));
            Map<String, Cell> m = launches.computeIfAbsent(id, k -> new HashMap<>());
            for (int c = 0; c < cols.size(); c++) m.put(cols.get(c), new Cell(row.get(c), colUnits[c], i + 1));
        }
    }

    private static Launch launch(int id, String kernel, Map<String, Cell> m, Double peak, Path file) {
        double ns = number(m, TIME, NcuUnit.Dimension.TIME_NS, file);
        double rd = number(m, READ, NcuUnit.Dimension.BYTES, file), wr = number(m, WRITE, NcuUnit.Dimension.BYTES, file);
        double bytes = (Double.isNaN(rd) ? 0 : rd) + (Double.isNaN(wr) ? 0 : wr);
        if (ns == 0 && bytes > 0) {
            Cell t = first(m, TIME);
            throw new IllegalArgumentException(file + ":" + t.line + ": launch " + id + " moved " + (long) bytes + " bytes in a duration of 0: not a measurement");
        }
        double gbs = Double.isNaN(ns) || bytes == 0 ? Double.NaN : bytes / ns;
        double pct = peak == null || Double.isNaN(gbs) ? number(m, PCT, NcuUnit.Dimension.PERCENT, file) : 100 * gbs * 1e9 / peak;
        Cell device = m.get("device__attribute_display_name");
        return new Launch(id, kernel, device == null ? null : device.text, ns / 1000, rd, wr, gbs, pct);
    }

    private static Cell first(Map<String, Cell> m, List<String> keys) {
        for (String k : keys) if (m.containsKey(k)) return m.get(k);
        return null;
    }

    /** The first of {@code keys} recorded, in base units; NaN when none is (or ncu wrote n/a). */
    private static double number(Map<String, Cell> m, List<String> keys, NcuUnit.Dimension dimension, Path file) {
        String key = keys.stream().filter(m::containsKey).findFirst().orElse(null);
        if (key == null) return Double.NaN;
        Cell c = m.get(key);
        if (c.unit != NcuUnit.NONE && c.unit.dimension() != dimension)
            throw new IllegalArgumentException(file + ":" + c.line + ": " + key + " is in '" + c.unit.text() + "', not a unit of " + dimension);
        double v = value(c.text, c.unit, file, c.line, key);
        if (v < 0 || Double.isInfinite(v)) throw new IllegalArgumentException(file + ":" + c.line + ": " + key + " '" + c.text + "' is out of range");
        double most = dimension == NcuUnit.Dimension.TIME_NS ? MOST_NS : dimension == NcuUnit.Dimension.BYTES ? MOST_BYTES : Double.MAX_VALUE;
        if (v > most) throw new IllegalArgumentException(file + ":" + c.line + ": " + key + " '" + c.text + (c.unit == NcuUnit.NONE ? "" : " " + c.unit.text())
                + "' is out of range for one launch (over " + (dimension == NcuUnit.Dimension.TIME_NS ? "an hour" : "1 PiB") + ")");
        return v;
    }

    private static NcuUnit unit(String text, Path file, int line, String metric) {
        try {
            return NcuUnit.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ":" + (line + 1) + ": " + metric + ": " + e.getMessage());
        }
    }

    private static int parseId(String s, Path file, int line) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ":" + (line + 1) + ": ID '" + s + "' is not a number");
        }
    }

    /** One launch's most: an hour, and a pebibyte; more is a broken export, not a kernel. */
    static final double MOST_NS = 3600e9, MOST_BYTES = 0x1p50;
    /** ncu's thousands grouping, {@code 1,234,567.5}; any other comma is a decimal comma or a typo. */
    private static final java.util.regex.Pattern GROUPED = java.util.regex.Pattern.compile("[-+]?\\d{1,3}(,\\d{3})+(\\.\\d*)?([eE][-+]?\\d+)?");

    /** A metric value in base units; ncu groups thousands with commas. {@code line} is 1-based. */
    static double value(String text, NcuUnit unit, Path file, int line, String metric) {
        String t = text.strip();
        if (t.indexOf(',') >= 0) {
            if (!GROUPED.matcher(t).matches()) throw new IllegalArgumentException(file + ":" + line + ": " + metric + " value '" + text
                    + "' has a comma that is not a thousands separator (a decimal comma?); export with a '.' decimal point (LC_NUMERIC=C ncu ...)");
            t = t.replace(",", "");
        }
        if (t.isEmpty() || t.equals("n/a")) return Double.NaN;
        try {
            return unit.convert(Double.parseDouble(t));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ":" + line + ": " + metric + " value '" + text + "' is not a number");
        }
    }

    /** Splits one CSV line with double-quoted fields. */
    static List<String> split(String line, Path file, int lineNo) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') { cur.append('"'); i++; }
                else if (c == '"') quoted = false;
                else cur.append(c);
            } else if (c == '"') quoted = true;
            else if (c == ',') { out.add(cur.toString()); cur.setLength(0); }
            else cur.append(c);
        }
        if (quoted) throw new IllegalArgumentException(file + ":" + (lineNo + 1) + ": unterminated quote");
        out.add(cur.toString());
        return out;
    }
}
