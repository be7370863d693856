package gluelab.trace;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The numbers of one trace, as `gluelab trace summary --json` prints them. */
public record TraceSummary(
        String file, String device, @JsonProperty("json_bytes") long jsonBytes, @JsonProperty("parse_seconds") double parseSeconds,
        @JsonProperty("kernel_time_us") double kernelTimeUs, @JsonProperty("kernel_count") int kernelCount,
        @JsonProperty("memcpy_time_us") double memcpyTimeUs, @JsonProperty("memcpy_count") int memcpyCount,
        @JsonProperty("memset_time_us") double memsetTimeUs, @JsonProperty("memset_count") int memsetCount,
        Map<String, FamilyTotal> families, List<KernelRow> kernels, List<Symptom> symptoms, HostAnalysis host, int steps,
        @JsonProperty("record_shapes") boolean recordShapes, @JsonProperty("bandwidth_gbs") Double bandwidthGBs,
        @JsonProperty("op_floors") List<ShapeFloors.OpFloor> opFloors,
        @JsonProperty("unknown_kinds") Map<String, Integer> unknownKinds, Map<String, Integer> warnings,
        @JsonProperty("warning_examples") Map<String, String> warningExamples) {

    /** GPU time over all families: kernels, copies and sets. */
    public double familyTimeUs() {
        return families.values().stream().mapToDouble(FamilyTotal::timeUs).sum();
    }

    public record FamilyTotal(@JsonProperty("time_us") double timeUs, int count) {}

    public record KernelRow(String name, String family, int count, @JsonProperty("total_us") double totalUs,
                            @JsonProperty("mean_us") double meanUs, @JsonProperty("share_pct") double sharePct) {}

    /** Summarises a trace; {@code bandwidth} (bytes/s) adds ideal times from shapes, null skips them. */
    public static TraceSummary of(Trace t, double parseSeconds, KernelFamilies families, Double bandwidth) {
        List<KernelTable.Entry> table = KernelTable.of(t, families);
        HostAnalysis host = t.host();
        Map<String, FamilyTotal> fams = new LinkedHashMap<>();
        KernelTable.families(t, families).forEach((k, v) -> fams.put(k, new FamilyTotal(round(v[0]), (int) v[1])));
        Trace.GpuMem mem = t.gpuMem();
        List<KernelRow> rows = table.stream().map(e -> new KernelRow(e.name(), e.family(), e.count(), round(e.totalUs()), round(e.meanUs()),
                round(100 * e.share()))).toList();
        List<ShapeFloors.OpFloor> floors = bandwidth == null || !t.recordShapes() ? List.of() : ShapeFloors.of(t, bandwidth);
        return new TraceSummary(t.file().toString(), t.device(), t.bytesRead(), parseSeconds, round(t.kernelMicros()), t.kernelCount(),
                round(mem.memcpyUs()), mem.memcpyCount(), round(mem.memsetUs()), mem.memsetCount(), fams, rows, Symptoms.of(t, table, host), host,
                t.steps().size(), t.recordShapes(), bandwidth == null ? null : bandwidth / 1e9, floors, t.unknownKinds(), t.warnings(), t.warningExamples());
    }

    /** Microseconds to 3 decimals: trace timestamps carry nanoseconds, no more. */
    static double round(double us) { return Math.rint(us * 1000) / 1000.0; }
}
