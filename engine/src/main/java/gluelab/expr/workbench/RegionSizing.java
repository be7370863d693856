package gluelab.expr.workbench;

import gluelab.calibrate.Calibration;
import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.expr.Region;
import gluelab.expr.run.Lowering;
import gluelab.ops.Pass;
import gluelab.timing.TimingConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Region sizing (workflow step 5): for A and B where B reads A's outputs, time region(A) + eager B,
 * region(A) + region(B), and region(C = A then B), forward and backward, against C's floor, with the
 * distinct signatures each choice compiles (region(C) inherits every call signature of A and B).
 */
public final class RegionSizing {
    private RegionSizing() {}

    public static List<RegionBench.Row> measure(Device d, Calibration cal, Region a, Region b, TimingConfig timing) {
        Map<String, Buffer> pool = new LinkedHashMap<>();
        try {
            return measure(d, cal, a, b, timing, pool);
        } finally {
            pool.values().forEach(Buffer::close);
        }
    }

    /** The same over buffers kept in {@code pool} by tensor name (the six chains share their tensors; the caller closes them). */
    public static List<RegionBench.Row> measure(Device d, Calibration cal, Region a, Region b, TimingConfig timing, Map<String, Buffer> pool) {
        Region c = a.then(b);
        List<RegionBench.Row> rows = new ArrayList<>();
        int eagerB = RegionBench.signatures(b, Lowering.EAGER), eagerBBwd = RegionBench.signatures(b.backward(), Lowering.EAGER);
        String ab = a.name() + " | " + b.name();
        // Forward: A runs first; backward: B's backward first (it makes A's output gradient), then A's.
        rows.add(RegionBench.bench(d, cal, new RegionBench.Chain(ab, "fwd", "region(A) + eager B", List.of(a, b), List.of(Lowering.FUSED, Lowering.EAGER), c, 1 + eagerB), timing, pool));
        rows.add(RegionBench.bench(d, cal, new RegionBench.Chain(ab, "fwd", "region(A) + region(B)", List.of(a, b), List.of(Lowering.FUSED, Lowering.FUSED), c, 2), timing, pool));
        rows.add(RegionBench.bench(d, cal, new RegionBench.Chain(ab, "fwd", "region(C)", List.of(c), List.of(Lowering.FUSED), c, 1), timing, pool));
        Region aB = a.backward(), bB = b.backward(), cB = c.backward();
        rows.add(RegionBench.bench(d, cal, new RegionBench.Chain(ab, "bwd", "region(A) + eager B", List.of(bB, aB), List.of(Lowering.EAGER, Lowering.FUSED), cB, 1 + eagerBBwd), timing, pool));
        rows.add(RegionBench.bench(d, cal, new RegionBench.Chain(ab, "bwd", "region(A) + region(B)", List.of(bB, aB), List.of(Lowering.FUSED, Lowering.FUSED), cB, 2), timing, pool));
        rows.add(RegionBench.bench(d, cal, new RegionBench.Chain(ab, "bwd", "region(C)", List.of(cB), List.of(Lowering.FUSED), cB, 1), timing, pool));
        return rows;
    }

    public static tech.tablesaw.api.Table table(List<RegionBench.Row> rows) { return RegionBench.table("region sizing", rows); }
}
