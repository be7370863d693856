package gluelab.expr.lower;

import gluelab.expr.Expr;
import gluelab.expr.Op;
import gluelab.expr.Region;

/** What a region must move and compute: every input read once, every output written once (an alias of another not again); FLOPs from its nodes. */
public record RegionCost(long bytesRead, long bytesWritten, long flops) {
    public static RegionCost of(Region r) {
        long read = 0, written = 0, flops = 0;
        for (Expr in : r.inputs()) read += in.bytes();
        for (Expr o : r.written().values()) written += o.bytes();
        for (Expr e : r.nodes()) {
            long per = e.op().flopsPerElement();
            long n = e.op().kind() == Op.Kind.REDUCE || e.op() == Op.SUM_TO ? e.arg(0).shape().elements() : e.shape().elements();
            flops += per * n;
        }
        return new RegionCost(read, written, flops);
    }

    public long bytes() { return bytesRead + bytesWritten; }

    public RegionCost plus(RegionCost o) { return new RegionCost(bytesRead + o.bytesRead, bytesWritten + o.bytesWritten, flops + o.flops); }
}
