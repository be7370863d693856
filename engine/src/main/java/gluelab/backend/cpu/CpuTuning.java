package gluelab.backend.cpu;

import gluelab.device.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The CPU's fused loops as a tunable space: block sizes of the row and element loops. Nothing to compile. */
final class CpuTuning implements Tunable {
    private final CpuDevice device;
    private final ConfigPicks picks;

    CpuTuning(CpuDevice device, ConfigPicks picks) {
        this.device = device;
        this.picks = picks;
    }

    @Override public List<KernelConfig> configs(OpInstance instance) { return CpuKernels.forOp(instance.op()).configs(instance); }

    @Override public List<CompileOutcome> compile(OpInstance instance, List<KernelConfig> configs, int threads) {
        List<CompileOutcome> out = new ArrayList<>();
        for (KernelConfig c : configs) out.add(new CompileOutcome(c, 0, false, Optional.empty()));
        return out;
    }

    @Override public Launch prepare(OpInstance instance, Map<String, Buffer> args, KernelConfig config) {
        return device.prepare(instance, args, config);
    }

    /** A CPU tune times JIT-compiled kernels (seconds each): only when asked, and a few seconds a kernel. */
    @Override public boolean tunesUnasked() { return false; }

    @Override public double timingSecondsPerKernel() { return CPU_SECONDS_PER_KERNEL; }

    /** The cap on a CPU tune's timing of one kernel. */
    static final double CPU_SECONDS_PER_KERNEL = 3.0;

    @Override public String codeId() { return "cpu " + device.facts().name() + " threads=" + device.parallel().threads(); }

    @Override public ConfigPicks picks() { return picks; }
}
