package gluelab.workflow.confirm;

import gluelab.table.Columns;
import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.device.OpBuffers;
import gluelab.device.OpInstance;
import gluelab.floor.Floor;
import gluelab.ops.*;
import gluelab.progress.Progress;
import gluelab.timing.Harness;
import gluelab.timing.Measurement;
import gluelab.timing.Subjects;

import java.util.*;

/**
 * Times each comparison's variants as whole forward + backward steps, interleaved in this process
 * (the screen), with the CUDA-graph replay of the whole step where the device has graphs. The
 * same code runs in every confirmation process.
 */
public final class TrainStepTiming {
    private TrainStepTiming() {}

    public static List<Timed> run(Device device, ConfirmJob job, Progress progress) {
        List<Timed> out = new ArrayList<>();
        int i = 0;
        for (Comparison c : job.comparisons()) {
            if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("confirmation interrupted");
            progress.update("time", i++, job.comparisons().size(), c.toString());
            out.addAll(time(device, job, c));
        }
        progress.update("time", i, job.comparisons().size(), "done");
        return out;
    }

    private static List<Timed> time(Device device, ConfirmJob job, Comparison c) {
        GlueOp op = Catalogue.parse(c.op());
        OpShape shape = op.shape(job.spec(), c.tokens(), job.dtype());
        Map<Pass, Map<String, Buffer>> args = new EnumMap<>(Pass.class);
        List<Launch> launches = new ArrayList<>();
        Subjects<Timed> subjects = new Subjects<>(device);
        try {
            double idealUs = 0;
            long bytes = 0;
            for (Pass p : Pass.values()) {
                if (!op.supports(p)) continue;
                Map<String, Buffer> a = new LinkedHashMap<>();
                args.put(p, a);
                OpBuffers.allocate(device, op, shape, p, 42, a);
                idealUs += Floor.of(op, shape, p, job.calibration()).idealSeconds() * 1e6;
                bytes += a.values().stream().mapToLong(b -> b.spec().bytes()).sum();
            }
            for (Variant v : List.of(c.baseline(), c.candidate())) {
                List<Launch> passes = new ArrayList<>();
                for (var e : args.entrySet()) {
                    Launch l = device.prepare(new OpInstance(op, shape, e.getKey(), v), e.getValue());
                    launches.add(l);
                    passes.add(l);
                }
                Launch step = new TrainStepLaunch(passes);
                subjects.add(new Timed(c.op(), c.tokens(), v, Replay.DIRECT, idealUs, step.kernels(), null),
                        new Harness.Subject(c.op() + " " + v.id() + " fwd+bwd", step, bytes, job.timing().stop()));
                subjects.addGraphTwin(new Timed(c.op(), c.tokens(), v, Replay.GRAPH, idealUs, step.kernels(), null), step,
                        c.op() + " " + v.id() + " fwd+bwd (graph)", bytes, job.timing().stop());
            }
            List<Timed> out = new ArrayList<>();
            for (var t : subjects.interleave(new Harness(device), job.timing())) {
                Timed k = t.key();
                out.add(new Timed(k.op(), k.tokens(), k.variant(), k.replay(), k.idealUs(), k.kernels(), t.measurement()));
            }
            return out;
        } finally {
            // The graphs first: they replay the launches below.
            subjects.close();
            Collections.reverse(launches);
            launches.forEach(Launch::close);
            args.values().forEach(m -> m.values().forEach(Buffer::close));
        }
    }

    private static final gluelab.table.Column LAUNCH = gluelab.table.Column.text("launch", "normal fwd+bwd launches, or the whole fwd+bwd replayed as a graph"),
            STEP = gluelab.table.Column.time("step", "the fwd+bwd step's median");

    /** The screen as a table: each variant's fwd+bwd step, launched normally and as a graph replay, against the floor, and why it is noisy. */
    public static tech.tablesaw.api.Table table(List<Timed> timed) {
        var t = gluelab.table.DataTable.builder("screen: variants interleaved in one process", Columns.OP, Columns.TOKENS, Columns.VARIANT, LAUNCH,
                Columns.KERNELS, STEP, Columns.IDEAL, Columns.PCT_OF_FLOOR, Columns.NOISY);
        for (Timed x : timed) {
            t.row(x.op(), x.tokens(), x.variant().id(), x.replay() == Replay.GRAPH ? "graph fwd+bwd" : "normal fwd+bwd", x.kernels(), x.medianUs(),
                    x.idealUs(), 100 * x.idealUs() / x.medianUs(), x.measurement().noisy().orElse(""));
        }
        return gluelab.table.TableFormat.tablesaw(t.build());
    }

    /** A forward then a backward launch as one step, so one graph can capture the whole of it. */
    private record TrainStepLaunch(List<Launch> passes) implements Launch {
        @Override public void run() { for (Launch l : passes) l.run(); }

        @Override public int kernels() { return passes.stream().mapToInt(Launch::kernels).sum(); }

        @Override public long scratchBytes() { return passes.stream().mapToLong(Launch::scratchBytes).sum(); }
    }
}
