package gluelab.tune;

import gluelab.device.ShippedPicks;
import gluelab.files.Json;
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
        PicksExport.Result r = PicksExport.gather(dir, "sm_90", "abc", "NVIDIA H200, driver 580", "the command");
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
        assertTrue(ShippedPicks.of(back, "abc").file().isPresent());
    }

    @Test
    void noMatchingPickIsAnErrorThatSaysWhatWasFound(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("c.json"), Json.write(tuned("cast", 4096, "sm_90 kernels@old nvrtc 13.0", "p3", "parallel x16")));
        var e = assertThrows(IllegalArgumentException.class, () -> PicksExport.gather(dir, "sm_90", "abc", "t", "c"));
        assertTrue(e.getMessage().contains("1 on other sources"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> PicksExport.gather(dir.resolve("nope"), "sm_90", "abc", "t", "c"));
        assertTrue(e.getMessage().contains("no tuning records"), e.getMessage());
    }
}
