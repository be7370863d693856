package gluelab.trace;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class TraceAnalysisTest {
    static Trace trace(String name) { return TraceReader.read(TraceReaderTest.TRACES.resolve(name)); }

    @Test
    void familiesFollowTheRules() {
        KernelFamilies f = KernelFamilies.defaults();
        assertEquals("gemm", f.of("nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NTN"));
        assertEquals("attention", f.of("cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26"));
        assertEquals("cat/copy", f.of("void at::native::(anonymous namespace)::CatArrayBatchedCopy<...>"));
        assertEquals("pointwise", f.of("triton_poi_fused_add_mul_0"));
        assertEquals("reduction", f.of("triton_per_fused__to_copy_add_mean_mul_pow_rsqrt_0"));
        assertEquals("reduction", f.of("void at::native::reduce_kernel<512, 1>"));
        assertEquals("scatter/gather", f.of("void at::native::index_put_kernel"));
        assertEquals("sort/top-k", f.of("void at::native::sbtopk::gatherTopK"));
        assertEquals("other", f.of("mystery_kernel_x"));
    }

    @Test
    void customFamilyRulesAndTheirErrors(@TempDir Path dir) throws Exception {
        Path ok = Files.writeString(dir.resolve("f.txt"), "# mine\nnorms = rms|layer_norm\n\nrest = .\n");
        KernelFamilies f = KernelFamilies.parse(ok);
        assertEquals("norms", f.of("fused_rms_kernel"));
        assertEquals("rest", f.of("anything"));
        Path bad = Files.writeString(dir.resolve("bad.txt"), "a = (unclosed\n");
        var e = assertThrows(IllegalArgumentException.class, () -> KernelFamilies.parse(bad));
        assertTrue(e.getMessage().contains("bad.txt:1"), e.getMessage());
        Path noEq = Files.writeString(dir.resolve("noeq.txt"), "just words\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KernelFamilies.parse(noEq)).getMessage().contains("noeq.txt:1"));
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void theKernelTableKeepsCountsOfMergedNames() {
        List<KernelTable.Entry> rows = KernelTable.of(trace("block_eager_T4096.json.gz"), KernelFamilies.defaults());
        assertEquals(208, rows.stream().mapToInt(KernelTable.Entry::count).sum());
        assertTrue(rows.stream().anyMatch(r -> r.count() > 1));
        assertEquals(1.0, rows.stream().mapToDouble(KernelTable.Entry::share).sum(), 1e-9);
        for (int i = 1; i < rows.size(); i++) assertTrue(rows.get(i - 1).totalUs() >= rows.get(i).totalUs());
        assertTrue(KernelTable.table(rows, 60).rowCount() == rows.size());
    }

    @Test
    void symptomsOfTheEagerGlue() {
        Trace t = trace("glue_eager_shapes_T8192.json.gz");
        TraceSummary s = TraceSummary.of(t, 0, KernelFamilies.defaults(), null);
        List<String> ids = s.symptoms().stream().map(Symptom::id).toList();
        assertTrue(ids.containsAll(List.of("complex-kernels", "direct-copy-backward", "host-syncs")), ids.toString());
        Symptom complex = s.symptoms().stream().filter(x -> x.id().equals("complex-kernels")).findFirst().orElseThrow();
        assertTrue(complex.pattern().contains("443.7 us"));
        // Inductor has no complex codegen: the compiled trace keeps aten complex kernels, while its
        // Triton kernels that fused view_as_complex are real arithmetic and not counted.
        TraceSummary compiled = TraceSummary.of(trace("glue_compiled_shapes_T8192.json.gz"), 0, KernelFamilies.defaults(), null);
        Symptom left = compiled.symptoms().stream().filter(x -> x.id().equals("complex-kernels")).findFirst().orElseThrow();
        assertFalse(left.evidence().contains("triton"), left.evidence());
        assertEquals(198, s.host().launches());
        assertEquals(4, s.host().syncs());
    }

    @Test
    void idealTimesFromShapes() {
        Trace t = trace("glue_eager_shapes_T8192.json.gz");
        List<ShapeFloors.OpFloor> floors = ShapeFloors.of(t, 4272e9);
        var mul = floors.stream().filter(f -> f.op().equals("aten::mul") && f.shapes().equals("[8192, 14336] [8192, 14336]")).findFirst().orElseThrow();
        long one = 3L * 8192 * 14336 * 2;
        assertEquals(one * mul.instances(), mul.bytes());
        assertEquals(mul.bytes() / 4272e9 * 1e6, mul.idealUs(), 1e-9);
        var mean = floors.stream().filter(f -> f.op().equals("aten::mean") && f.shapes().equals("[8192, 4096]")).findFirst().orElseThrow();
        // fp32 input [8192, 4096] read, [8192, 1] written (keepdim over the last dim)
        assertEquals((8192L * 4096 * 4 + 8192L * 4) * mean.instances(), mean.bytes());
        assertTrue(mean.outputs().startsWith("known: reduced"));
        var copy = floors.stream().filter(f -> f.op().equals("aten::copy_") && f.shapes().startsWith("[8192, 32, 128]")).findFirst().orElseThrow();
        assertTrue(copy.outputs().contains("dst written"));
        assertTrue(floors.stream().allMatch(f -> f.measuredUs() > 0));
        double linked = floors.stream().mapToDouble(ShapeFloors.OpFloor::measuredUs).sum();
        assertEquals(t.kernelMicros(), linked, 1e-6, "every kernel of a record_shapes trace is linked to its op");
    }

    @Tag("slow") // among the slowest of the fast run (docs/development.md)
    @Test
    void theDiffShowsWhereCompileSavedTime() throws Exception {
        TraceSummary a = TraceSummary.of(trace("block_eager_T4096.json.gz"), 0, KernelFamilies.defaults(), null);
        TraceSummary b = TraceSummary.of(trace("block_compiled_T4096.json.gz"), 0, KernelFamilies.defaults(), null);
        TraceDiff d = TraceDiff.of(a, b);
        assertEquals(18737.553 - 22196.498, d.kernelTimeDeltaUs(), 1e-6);
        assertEquals(-104, d.kernelCountDelta());
        var pointwise = d.families().stream().filter(f -> f.family().equals("pointwise")).findFirst().orElseThrow();
        assertTrue(pointwise.deltaUs() < -2000, pointwise.toString());
        var gemm = d.families().stream().filter(f -> f.family().equals("gemm")).findFirst().orElseThrow();
        assertEquals(30, gemm.aCount());
        assertTrue(Math.abs(gemm.deltaUs()) < 0.01 * gemm.aUs(), "GEMMs barely change under compile: " + gemm);
        var chart = TraceCharts.families(d);
        assertTrue(chart.getTitle().contains("NVIDIA H200"), chart.getTitle());
        Path png = gluelab.chart.Charts.save(chart, Path.of("target/chart-samples/trace_families"));
        assertTrue(Files.size(png) > 1000);
        assertTrue(Files.size(Path.of("target/chart-samples/trace_families.svg")) < 100_000);
    }

    @Test
    void ncuDetailsPageWithProgramOutputAroundIt() throws Exception {
        Path f = Path.of(getClass().getResource("/ncu/details_calib_copy.csv").toURI());
        List<NcuReport.Launch> l = NcuReport.read(f, 4.8e12);
        assertEquals(3, l.size());
        assertEquals("calib_copy", l.getFirst().kernel());
        assertEquals(523.808, l.getFirst().timeUs(), 1e-9);
        assertTrue(Double.isNaN(l.getFirst().achievedGBs()), "no DRAM metrics were recorded in this file");
    }

    @Test
    void ncuRawPageWithUnitsRowAndBadInput(@TempDir Path dir) throws Exception {
        Path raw = Files.writeString(dir.resolve("raw.csv"), """
                ==PROF== Connected to process 1
                "ID","Process ID","Kernel Name","gpu__time_duration.sum","dram__bytes_read.sum","dram__bytes_write.sum"
                "","","","usecond","Mbyte","Mbyte"
                "0","1","fused_rmsnorm_fwd","100.5","268.435456","268.435456"
                """);
        var l = NcuReport.read(raw, 4.8e12);
        assertEquals(100.5, l.getFirst().timeUs(), 1e-9);
        assertEquals(268435456, l.getFirst().dramRead(), 1e-3);
        assertEquals(2 * 268435456 / 100500.0, l.getFirst().achievedGBs(), 1e-6);
        assertEquals(100 * l.getFirst().achievedGBs() * 1e9 / 4.8e12, l.getFirst().pctOfPeak(), 1e-9);
        Path none = Files.writeString(dir.resolve("none.csv"), "==PROF== nothing profiled\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NcuReport.read(none, null)).getMessage().contains("no ncu CSV header"));
        Path badValue = Files.writeString(dir.resolve("bad.csv"), "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"0\",\"k\",\"fast\"\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NcuReport.read(badValue, null)).getMessage().contains("bad.csv:2"));
    }
}
