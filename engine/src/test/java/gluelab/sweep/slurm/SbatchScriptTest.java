package gluelab.sweep.slurm;

import gluelab.model.SpecRegistry;
import gluelab.sweep.PlanFile;
import gluelab.sweep.SweepDir;
import gluelab.sweep.WorkerCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class SbatchScriptTest {
    @Test
    void theArrayScriptCarriesEveryOptionAndQuotesPaths(@TempDir Path tmp) {
        SweepDir dir = SweepDir.create(tmp.resolve("it's a sweep"), PlanFile.parse("{\"ops\": \"rmsnorm\"}", "plan.json", SpecRegistry.presets()));
        SlurmOptions o = new SlurmOptions("gpu", 1, 4, "1-02:00:00", 16, "cuda:0", List.of("--account=perf"));
        WorkerCommand w = new WorkerCommand(Path.of("/opt/gluelab/runtime/bin/java"), "/opt/gluelab/runtime/lib/app/*", Map.of());
        String s = SbatchScript.render(dir, 300, tmp.resolve("list"), o, w);
        for (String line : List.of("#SBATCH --array=0-299%16", "#SBATCH --partition=gpu", "#SBATCH --gpus-per-task=1", "#SBATCH --cpus-per-task=4",
                "#SBATCH --time=1-02:00:00", "#SBATCH --account=perf", "#SBATCH --job-name=gluelab-" + dir.id())) {
            assertTrue(s.lines().anyMatch(line::equals), "missing '" + line + "' in\n" + s);
        }
        assertTrue(s.contains("exec '/opt/gluelab/runtime/bin/java'"), s);
        assertTrue(s.contains("'/opt/gluelab/runtime/lib/app/*'"), "the class path wildcard is left to java: " + s);
        assertTrue(s.contains("/it'\\''s a sweep' '--index' \"$shard\" '--device' 'cuda:0'"), "a quote in a path is escaped: " + s);
        String cpu = SbatchScript.render(dir, 4, tmp.resolve("list"), new SlurmOptions(null, 0, 1, null, 2, "cpu", List.of()), w);
        assertFalse(cpu.contains("--gpus-per-task") || cpu.contains("--partition") || cpu.contains("--time"), cpu);
    }

    @Test
    void badOptionsAreRefusedByName() {
        var e = assertThrows(IllegalArgumentException.class, () -> new SlurmOptions("gpu", 1, 4, "half an hour", 16, "cuda:0", List.of()));
        assertTrue(e.getMessage().contains("--time 'half an hour'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new SlurmOptions("gpu; rm -rf /", 1, 4, "30:00", 16, "cuda:0", List.of()));
        assertTrue(e.getMessage().contains("--partition"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new SlurmOptions(null, -1, 4, "30:00", 16, "cuda:0", List.of()));
        assertTrue(e.getMessage().contains("--gpus-per-task"), e.getMessage());
    }
}
