package gluelab.trace;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;

/**
 * Nsight Compute CSV ({@code ncu --csv}), either page: "details" (one row per metric: Metric Name,
 * Metric Unit, Metric Value) or "raw" (one row per kernel, metrics as columns, a units row under the
 * header). Lines ncu prints before the header (warnings, ==PROF==) are skipped. Per kernel launch:
 * gpu__time_duration, DRAM bytes read and written, achieved bandwidth and % of a given peak.
 */
public final class NcuReport {
    public record Launch(int id, String kernel, @JsonProperty("time_us") double timeUs, @JsonProperty("dram_read_bytes") double dramRead,
                         @JsonProperty("dram_write_bytes") double dramWrite, @JsonProperty("achieved_gbs") double achievedGBs,
                         @JsonProperty("pct_of_peak") double pctOfPeak) {}

    private NcuReport() {}

    public static List<Launch> read(Path file, Double peakBytesPerSecond) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read ncu CSV " + file + ": " + e.getMessage(), e);
        }
        int header = -1;
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith("\"ID\"")) { header = i; break; }
        if (header < 0) throw new IllegalArgumentException(file + ": no ncu CSV header (a line starting with \"ID\"); was it written with ncu --csv?");
        List<String> cols = split(lines.get(header), file, header);
        int idCol = cols.indexOf("ID"), nameCol = cols.indexOf("Kernel Name");
        if (nameCol < 0) throw new IllegalArgumentException(file + ":" + (header + 1) + ": no \"Kernel Name\" column");
        Map<Integer, Map<String, Double>> metrics = new TreeMap<>();
        Map<Integer, String> names = new HashMap<>();
        int metricName = cols.indexOf("Metric Name"), unitCol = cols.indexOf("Metric Unit"), valueCol = cols.indexOf("Metric Value");
        if (metricName >= 0) {
            for (int i = header + 1; i < lines.size(); i++) {
                if (lines.get(i).isBlank() || !lines.get(i).startsWith("\"")) continue;
                List<String> row = split(lines.get(i), file, i);
                if (row.size() < cols.size()) throw new IllegalArgumentException(file + ":" + (i + 1) + ": " + row.size() + " fields, expected " + cols.size());
                int id = parseId(row.get(idCol), file, i);
                names.put(id, row.get(nameCol));
                metrics.computeIfAbsent(id, k -> new HashMap<>()).put(row.get(metricName), value(row.get(valueCol), row.get(unitCol), file, i));
            }
        } else {
            List<String> units = header + 1 < lines.size() ? split(lines.get(header + 1), file, header + 1) : List.of();
            boolean unitRow = !units.isEmpty() && units.get(idCol).isEmpty();
            for (int i = header + (unitRow ? 2 : 1); i < lines.size(); i++) {
                if (lines.get(i).isBlank() || !lines.get(i).startsWith("\"")) continue;
                List<String> row = split(lines.get(i), file, i);
                int id = parseId(row.get(idCol), file, i);
                names.put(id, row.get(nameCol));
                Map<String, Double> m = metrics.computeIfAbsent(id, k -> new HashMap<>());
                for (int c = 0; c < cols.size() && c < row.size(); c++) {
                    if (cols.get(c).contains("__")) m.put(cols.get(c), value(row.get(c), unitRow ? units.get(c) : "", file, i));
                }
            }
        }
        List<Launch> out = new ArrayList<>();
        for (var e : metrics.entrySet()) {
            Map<String, Double> m = e.getValue();
            double ns = m.getOrDefault("gpu__time_duration.sum", m.getOrDefault("gpu__time_duration.avg", Double.NaN));
            double rd = m.getOrDefault("dram__bytes_read.sum", Double.NaN), wr = m.getOrDefault("dram__bytes_write.sum", Double.NaN);
            double bytes = (Double.isNaN(rd) ? 0 : rd) + (Double.isNaN(wr) ? 0 : wr);
            double gbs = Double.isNaN(ns) || bytes == 0 ? Double.NaN : bytes / ns;
            double pct = peakBytesPerSecond == null || Double.isNaN(gbs) ? m.getOrDefault("dram__throughput.avg.pct_of_peak_sustained_elapsed", Double.NaN)
                    : 100 * gbs * 1e9 / peakBytesPerSecond;
            out.add(new Launch(e.getKey(), names.get(e.getKey()), ns / 1000, rd, wr, gbs, pct));
        }
        return out;
    }

    private static int parseId(String s, Path file, int line) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ":" + (line + 1) + ": ID '" + s + "' is not a number");
        }
    }

    /** A metric value in base units (ns, bytes); ncu writes thousands separators and scaled units. */
    static double value(String text, String unit, Path file, int line) {
        String t = text.replace(",", "").strip();
        if (t.isEmpty() || t.equals("n/a")) return Double.NaN;
        double v;
        try {
            v = Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ":" + (line + 1) + ": metric value '" + text + "' is not a number");
        }
        return v * switch (unit.strip().toLowerCase(Locale.ROOT)) {
            case "us", "usecond" -> 1e3;
            case "ms", "msecond" -> 1e6;
            case "kbyte" -> 1e3;
            case "mbyte" -> 1e6;
            case "gbyte" -> 1e9;
            default -> 1;
        };
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
