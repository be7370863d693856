package gluelab.tune;

import gluelab.device.ShippedPicks;
import gluelab.files.Json;
import gluelab.ops.OpId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class PicksExportTest {
    static TuneResult tuned(String op, long tokens, String code, String pick, String mode) {
        return new TuneResult(op, "fwd", "bf16", tokens, "{D=4096, T=" + tokens + "}{eps=1.0E-5}", code, "k", mode, 12, 1, 2, 12, 3,
                pick, "second", 10.123, 11.5, 1e-3, 0.5, List.of(), 16, 1, "", false);
    }

    @Test
    void gathersThePicksOfOneArchitectureAndSourceHashAndCountsTheRest(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.json"), Json.write(tuned("rmsnorm", 8192, "sm_90 kernels@abc nvrtc 13.0", "p1", "parallel x16")));
        Files.writeString(dir.resolve("b.json"), Json.write(tuned("cast", 2048, "sm_90 kernels@abc nvrtc 13.0", "p2", "parallel x16")));
        Files.writeString(dir.resolve("c.json"), Json.write(tuned("cast", 4096, "sm_90 kernels@old nvrtc 13.0", "p3", "parallel x16")));
        Files.writeString(dir.resolve("d.json"), Json.write(tuned("cast", 4096, "sm_100 kernels@abc nvrtc 13.0", "p4", "parallel x16")));
        Files.writeString(dir.resolve("e.json"), Json.write(tuned("cast", 4096, "region-codegen@x sm_90 kernels@abc nvrtc 13.0", "p5", "parallel x16")));
        Files.writeString(dir.resolve("f.json"), "{not json");
        Files.writeString(dir.resolve("x.pick"), "p1\n");
        PicksExport.Result r = PicksExport.gather(dir, "sm_90", SOURCES, "NVIDIA H200, driver 580", "the command");
        ShippedPicks.File f = r.file();
        assertEquals(List.of("cast", "rmsnorm"), f.picks().stream().map(ShippedPicks.Pick::op).toList());
        assertEquals(Map.of("D", 4096L, "T", 2048L), f.picks().get(0).dims());
        assertEquals("p2", f.picks().get(0).config());
        assertEquals(10.12, f.picks().get(0).pickUs());
        assertEquals("nvrtc 13.0", f.compiler());
        assertEquals(1, r.otherSources());
        assertEquals(1, r.otherArch());
        assertEquals(1, r.unreadable());
        // What is written reads back as a shipped file, and its picks are used for these kernels only.
        ShippedPicks.File back = ShippedPicks.read(Json.write(f).getBytes(), "sm_90.json");
        assertEquals(f, back);
        assertTrue(ShippedPicks.of(back, SOURCES).file().isPresent());
        assertEquals("abc", f.picks().get(0).kernels(), "each pick carries its family's source hash");
    }

    static final Map<OpId, String> SOURCES = Map.of(OpId.of("rmsnorm"), "abc", OpId.of("cast"), "abc", OpId.of("qnorm_rope_real"), "q2");

    static ShippedPicks.Pick shipped(String op, long tokens, String kernels, String config) {
        return new ShippedPicks.Pick(op, "fwd", "bf16", Map.of("D", 4096L, "T", tokens), kernels, config, 5, null, Double.NaN);
    }

    /** One family re-tuned after its file changed: its new picks replace the old, the other families' picks stay, stale ones not re-tuned go. */
    @Test
    void mergingIntoAFileReplacesTheRetunedFamilysPicksAndKeepsTheRest(@TempDir Path dir) throws Exception {
        TuneResult q = new TuneResult("qnorm_rope_real", "fwd", "bf16", 8192, "{D=4096, T=8192}{eps=1.0E-5}", "sm_90 kernels@q2 nvrtc 13.0", "k",
                "parallel x16", 12, 1, 2, 12, 3, "new", "second", 10.0, 11.0, 1e-3, 0.5, List.of(), 16, 1, "", false);
        Files.writeString(dir.resolve("q.json"), Json.write(q));
        ShippedPicks.File before = new ShippedPicks.File(2, "sm_90", "nvrtc 13.0", "H200", "2026-12-01", "c", List.of(
                shipped("qnorm_rope_real", 8192, "q1", "old"), shipped("qnorm_rope_real", 2048, "q1", "old"), shipped("rmsnorm", 8192, "abc", "norm")));
        PicksExport.Result r = PicksExport.gather(dir, "sm_90", SOURCES, "H200", "c", java.util.Optional.of(before));
        assertEquals(List.of("qnorm_rope_real@8192=new", "rmsnorm@8192=norm"),
                r.file().picks().stream().map(p -> p.op() + "@" + p.dims().get("T") + "=" + p.config()).toList());
        assertEquals(1, r.tuned());
        assertEquals(1, r.kept());
        assertEquals(1, r.staleDropped());
        assertTrue(r.summary().contains("1 of the merged file left out"), r.summary());
        var e = assertThrows(IllegalArgumentException.class, () -> PicksExport.gather(dir, "sm_100", SOURCES, "H200", "c", java.util.Optional.of(before)));
        assertTrue(e.getMessage().contains("for sm_90, not sm_100"), e.getMessage());
    }

    @Test
    void noMatchingPickIsAnErrorThatSaysWhatWasFound(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("c.json"), Json.write(tuned("cast", 4096, "sm_90 kernels@old nvrtc 13.0", "p3", "parallel x16")));
        var e = assertThrows(IllegalArgumentException.class, () -> PicksExport.gather(dir, "sm_90", SOURCES, "t", "c"));
        assertTrue(e.getMessage().contains("1 on other sources"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> PicksExport.gather(dir.resolve("nope"), "sm_90", SOURCES, "t", "c"));
        assertTrue(e.getMessage().contains("no tuning records"), e.getMessage());
    }
}
