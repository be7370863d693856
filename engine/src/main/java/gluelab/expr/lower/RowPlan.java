package gluelab.expr.lower;

import gluelab.expr.Dim;
import gluelab.expr.Expr;
import gluelab.expr.ExprException;
import gluelab.expr.Op;
import gluelab.expr.Region;
import gluelab.expr.Shape;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a region runs as one pass over rows: the row space (the row dims of its widest node), and
 * for every node its role, row length and where its row starts in its tensor. Both fused lowerings
 * (the CPU loop and the generated CUDA kernel) work from this plan; bad regions fail here, before
 * any compile.
 */
public final class RowPlan {
    private final Region region;
    private final Shape rowSpace;
    private final Map<Expr, Role> roles = new IdentityHashMap<>();
    private final Map<Expr, Integer> index = new IdentityHashMap<>();

    private RowPlan(Region region) {
        this.region = region;
        Shape widest = Shape.SCALAR;
        for (Expr e : region.nodes()) if (e.op() != Op.SUM_TO && e.shape().rank() > widest.rank()) widest = e.shape();
        this.rowSpace = widest.rowDims();
        for (Expr e : region.nodes()) {
            index.put(e, index.size());
            roles.put(e, classify(e));
        }
        for (Expr e : region.nodes()) {
            boolean alongRow = e.op().kind() == Op.Kind.REMAP || e.op().kind() == Op.Kind.REDUCE || e.op() == Op.SUM_TO;
            for (Expr a : e.args()) {
                if (alongRow && !a.isScalar() && roles.get(a) != Role.VECTOR) {
                    throw new ExprException("region '" + region.name() + "': " + e.describe() + " works along the last dim of " + a.describe()
                            + ", which is a row dim of this region " + rowSpace + "; split the region there");
                }
                if (roles.get(a) == Role.ACCUMULATE) {
                    throw new ExprException("region '" + region.name() + "': " + e.describe() + " reads " + a.describe()
                            + ", a sum over rows, which is complete only after the region; make it an output and read it in another region");
                }
            }
        }
    }

    public static RowPlan of(Region region) { return new RowPlan(region); }

    public Region region() { return region; }

    /** The dims the region iterates over, one row each. */
    public Shape rowSpace() { return rowSpace; }

    public long rows() { return rowSpace.elements(); }

    public List<Expr> nodes() { return region.nodes(); }

    public Role role(Expr e) { return roles.get(e); }

    /** The node's position in evaluation order. */
    public int index(Expr e) { return index.get(e); }

    /** Row length of a vector node, 1 otherwise. */
    public int length(Expr e) { return roles.get(e) == Role.VECTOR || roles.get(e) == Role.ACCUMULATE ? (int) e.shape().last().size() : 1; }

    /**
     * For each row-space dim, how far the node's row moves in its tensor when that dim's index
     * grows by one (0 for dims the node is broadcast along). Accumulated nodes use their target.
     */
    public long[] rowStrides(Expr e) {
        Shape s = e.shape();
        long[] out = new long[rowSpace.rank()];
        Role role = roles.get(e);
        Shape rows = role == Role.ROW ? s : s.rowDims();
        int[] at = strictEmbed(rowSpace, rows);
        long stride = role == Role.ROW ? 1 : s.last().size();
        for (int k = rows.rank() - 1; k >= 0; k--) {
            out[at[k]] = stride;
            stride *= rows.dims().get(k).size();
        }
        return out;
    }

    /** Nodes a rearranging primitive reads at other positions than its own: kept whole per row. */
    public boolean readsAcross(Expr e) {
        for (Expr user : region.nodes()) {
            if (user.op().kind() == Op.Kind.REMAP && user.args().contains(e)) return true;
        }
        return false;
    }

    /**
     * Whether the region is elementwise over one shape: pointwise nodes only (no reduction, no
     * rearranging, no sum over rows, no broadcasting), every tensor it reads or writes laid out as
     * the region's rows end to end. Such a region is one flat run of rows x length elements: the
     * CUDA lowering walks it as tiles in a grid-stride loop instead of row by row.
     */
    public boolean flat() {
        if (!accumulated().isEmpty()) return false;
        int len = maxLength();
        for (Expr e : region.nodes()) {
            Role role = roles.get(e);
            if (role == Role.SCALAR) continue;
            if (role != Role.VECTOR || e.op() == Op.BROADCAST || e.op().kind() != Op.Kind.POINTWISE && e.op() != Op.INPUT) return false;
            if (length(e) != len) return false;
            long[] s = rowStrides(e);
            long stride = len;
            for (int d = s.length - 1; d >= 0; d--) {
                if (s[d] != stride) return false;
                stride *= rowSpace.dims().get(d).size();
            }
        }
        return true;
    }

    /** The longest vector row in the region. */
    public int maxLength() {
        int m = 1;
        for (Expr e : region.nodes()) m = Math.max(m, length(e));
        return m;
    }

    public List<Expr> accumulated() {
        List<Expr> out = new ArrayList<>();
        for (Expr e : region.outputs().values()) if (roles.get(e) == Role.ACCUMULATE && !out.contains(e)) out.add(e);
        return out;
    }

    private Role classify(Expr e) {
        if (e.isScalar()) return Role.SCALAR;
        Shape s = e.shape();
        if (e.op() == Op.SUM_TO && s.rank() < e.arg(0).shape().rank()) {
            requireFits(e, s.rowDims());
            return Role.ACCUMULATE;
        }
        if (strictEmbed(rowSpace, s) != null) return Role.ROW;
        if (rowSpace.indexOf(s.last().name()) >= 0) {
            throw new ExprException("region '" + region.name() + "': " + e.describe() + " does not fit the row space " + rowSpace
                    + " (its last dim is a row dim and its other dims are not all row dims)");
        }
        requireFits(e, s.rowDims());
        return Role.VECTOR;
    }

    private void requireFits(Expr e, Shape rows) {
        if (strictEmbed(rowSpace, rows) == null) {
            throw new ExprException("region '" + region.name() + "': the row dims " + rows + " of " + e.describe()
                    + " are not among the region's row dims " + rowSpace + " in order; split the region");
        }
    }

    /** Positions of part's dims in wide, matching by name only, in order; null if they do not all appear. */
    static int[] strictEmbed(Shape wide, Shape part) {
        int[] at = new int[part.rank()];
        int from = 0;
        for (int i = 0; i < part.rank(); i++) {
            Dim d = part.dims().get(i);
            int k = wide.indexOf(d.name());
            if (k < from || wide.dims().get(k).size() != d.size()) return null;
            at[i] = k;
            from = k + 1;
        }
        return at;
    }
}
