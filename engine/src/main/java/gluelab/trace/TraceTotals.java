package gluelab.trace;

import java.nio.file.Path;
import java.util.*;

/**
 * The running totals {@link TraceReader} feeds event by event: per distinct kernel name, copies and
 * sets, launch and sync calls, GPU idle gaps ({@link GpuIdle}) and ops with shapes
 * ({@link OpLinks}). What it holds grows with distinct kernels, ops, steps and syncs, never with
 * launches; {@link #finish} makes the {@link Trace}.
 */
final class TraceTotals {
    private final Map<String, KernelTotals.Running> kernels = new LinkedHashMap<>();
    private int kernelCount;
    private double kernelMicros;
    private int memcpyCount, memsetCount;
    private double memcpyUs, memsetUs;
    private int launches;
    /** Sync calls, kept because ProfilerStep ranges may come later in the file. */
    private final List<String> syncNames = new ArrayList<>();
    private double[] syncTs = new double[16];
    private final List<Events.Step> steps = new ArrayList<>();
    private final GpuIdle idle = new GpuIdle();
    private final OpLinks ops = new OpLinks();
    private final OpCalls opCalls = new OpCalls();
    private final OpInputs.Collector opInputs = new OpInputs.Collector();
    private boolean kernelSeen;
    private int opsAfterKernels;

    void kernel(String name, double ts, double dur, long externalId, int[] grid, int[] block, int registers) {
        kernels.computeIfAbsent(name, n -> new KernelTotals.Running(n, grid, block, registers)).add(dur, grid, block);
        kernelCount++;
        kernelMicros += dur;
        idle.add(ts, ts + dur, false);
        ops.kernel(externalId, dur);
        kernelSeen = true;
    }

    void gpuMem(boolean memset, double ts, double dur) {
        if (memset) {
            memsetCount++;
            memsetUs += dur;
        } else {
            memcpyCount++;
            memcpyUs += dur;
        }
        idle.add(ts, ts + dur, true);
    }

    void apiCall(String name, double ts) {
        if (HostAnalysis.LAUNCH.contains(name)) launches++;
        else if (HostAnalysis.SYNC.contains(name)) {
            if (syncNames.size() == syncTs.length) syncTs = Arrays.copyOf(syncTs, syncTs.length * 2);
            syncTs[syncNames.size()] = ts;
            syncNames.add(name);
        }
    }

    /** Every CPU op, with or without shapes, for the calls and time per name. */
    void cpuOpTime(String name, long tid, double ts, double dur) { opCalls.add(name, tid, ts, dur); }

    void cpuOp(Events.CpuOp op) {
        if (kernelSeen) opsAfterKernels++;
        ops.op(op);
        opInputs.add(op);
    }

    void step(Events.Step s) { steps.add(s); }

    private static void note(Map<String, Integer> warnings, Map<String, String> examples, String kind, int count, String example) {
        warnings.merge(kind, count, Integer::sum);
        examples.putIfAbsent(kind, example);
    }

    /** The trace, with warnings for what the streaming could not place exactly; the maps given are added to. */
    Trace finish(Path file, long bytesRead, String device, boolean recordShapes, boolean backward, Map<String, Integer> unknownKinds,
                 Map<String, Integer> warnings, Map<String, String> warningExamples) {
        List<String> syncs = new ArrayList<>();
        for (int i = 0; i < syncNames.size(); i++) {
            double at = syncTs[i];
            if (steps.isEmpty() || steps.stream().anyMatch(s -> s.contains(at))) syncs.add(syncNames.get(i));
        }
        GpuIdle.Result gaps = idle.finish();
        HostAnalysis host = HostAnalysis.of(launches, syncs, gaps);
        if (gaps.late() > 0) {
            note(warnings, warningExamples, "GPU event out of time order by more than " + GpuIdle.WINDOW + " events (idle gaps approximate)",
                    (int) Math.min(Integer.MAX_VALUE, gaps.late()), "a kernel, copy or set that starts before one already placed");
        }
        if (opsAfterKernels > 0 && recordShapes) {
            note(warnings, warningExamples, "op with shapes after the first kernel (kernels before their op are not in ideal times)",
                    opsAfterKernels, "profilers write every CPU op before the GPU events; this file does not");
        }
        List<KernelTotals> table = new ArrayList<>(kernels.size());
        for (KernelTotals.Running k : kernels.values()) table.add(k.done());
        List<Trace.CpuOpTime> cpuOps = opCalls.finish();
        return new Trace(file, bytesRead, device, recordShapes, backward, kernelCount, kernelMicros, List.copyOf(table),
                new Trace.GpuMem(memcpyCount, memcpyUs, memsetCount, memsetUs), host, List.copyOf(ops.finish()), List.copyOf(steps),
                Map.copyOf(unknownKinds), Map.copyOf(warnings), Map.copyOf(warningExamples), List.copyOf(cpuOps), opInputs.finish());
    }

}
