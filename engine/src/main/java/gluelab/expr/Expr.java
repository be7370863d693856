package gluelab.expr;

import gluelab.tensor.DType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One node of a glue expression: a primitive over its operands, with a named shape and a dtype.
 * Nodes are immutable and checked as they are built, so a bad expression fails at the line that
 * wrote it, naming the node and the shapes. Arithmetic is in fp32 inside a fused region; a node's
 * dtype is what an eager kernel stores it as.
 */
public final class Expr {
    private static final AtomicLong IDS = new AtomicLong();

    private final long id;
    private final Op op;
    private final List<Expr> args;
    private final Shape shape;
    private final DType dtype;
    private final double num;
    private final String name;
    private final int start, step;
    private final boolean requiresGrad;

    Expr(Op op, List<Expr> args, Shape shape, DType dtype, double num, String name, int start, int step) {
        this(op, args, shape, dtype, num, name, start, step, false);
    }

    private Expr(Op op, List<Expr> args, Shape shape, DType dtype, double num, String name, int start, int step, boolean requiresGrad) {
        this.requiresGrad = requiresGrad;
        this.id = IDS.incrementAndGet();
        this.op = op;
        this.args = List.copyOf(args);
        this.shape = shape;
        this.dtype = dtype;
        this.num = num;
        this.name = name;
        this.start = start;
        this.step = step;
    }

    static Expr leaf(Op op, Shape shape, DType dtype, String name, double value, boolean requiresGrad) {
        return new Expr(op, List.of(), shape, dtype, value, name, 0, 0, requiresGrad);
    }

    /** The same primitive over other operands (of the same shapes): how regions are rebuilt and split. */
    public Expr withArgs(List<Expr> newArgs) {
        return new Expr(op, newArgs, shape, dtype, num, name, start, step, requiresGrad);
    }

    /** An input leaf outside any {@link Glue}: how lowerings name the tensors they hand between kernels. */
    public static Expr input(String name, Shape shape, DType dtype, boolean requiresGrad) {
        Dtypes.requireSupported(dtype, "input '" + name + "'");
        return leaf(Op.INPUT, shape, dtype, name, 0, requiresGrad);
    }

    /** An input the backward computes a gradient for. */
    public boolean requiresGrad() { return requiresGrad; }

    public Op op() { return op; }

    public List<Expr> args() { return args; }

    public Expr arg(int i) { return args.get(i); }

    public Shape shape() { return shape; }

    public DType dtype() { return dtype; }

    /** Bytes of this value in memory: every element at its dtype's width. */
    public long bytes() { return shape.elements() * dtype.bytes(); }

    /** A constant's value, a power's exponent, a parameter's default. */
    public double num() { return num; }

    /** An input's or parameter's name. */
    public String name() { return name; }

    public int start() { return start; }

    public int step() { return step; }

    public boolean isScalar() { return shape.isScalar(); }

    /** "#12 mul[T=16, D=64]:bf16": how errors name a node. */
    public String describe() {
        return "#" + id + " " + op.id() + (name != null ? " '" + name + "'" : "") + shape + ":" + dtype.id();
    }

    @Override public String toString() { return describe(); }

    // ---- pointwise math ----

    public Expr add(Expr o) { return binary(Op.ADD, o); }
    public Expr add(double c) { return binary(Op.ADD, constant(c)); }
    public Expr sub(Expr o) { return binary(Op.SUB, o); }
    public Expr sub(double c) { return binary(Op.SUB, constant(c)); }
    public Expr mul(Expr o) { return binary(Op.MUL, o); }
    public Expr mul(double c) { return binary(Op.MUL, constant(c)); }
    public Expr div(Expr o) { return binary(Op.DIV, o); }
    public Expr div(double c) { return binary(Op.DIV, constant(c)); }
    public Expr gt(Expr o) { return binary(Op.GT, o); }
    public Expr gt(double c) { return binary(Op.GT, constant(c)); }
    public Expr lt(Expr o) { return binary(Op.LT, o); }
    public Expr lt(double c) { return binary(Op.LT, constant(c)); }
    public Expr ge(Expr o) { return binary(Op.GE, o); }
    public Expr le(Expr o) { return binary(Op.LE, o); }
    public Expr eq(Expr o) { return binary(Op.EQ, o); }

    public Expr neg() { return unary(Op.NEG); }
    public Expr exp() { return unary(Op.EXP); }
    public Expr log() { return unary(Op.LOG); }
    public Expr sqrt() { return unary(Op.SQRT); }
    public Expr rsqrt() { return unary(Op.RSQRT); }
    public Expr silu() { return unary(Op.SILU); }
    public Expr sigmoid() { return unary(Op.SIGMOID); }
    public Expr tanh() { return unary(Op.TANH); }
    public Expr square() { return pow(2); }

    /** x to a constant power (compiled in; a different exponent is a different kernel). */
    public Expr pow(double exponent) {
        requireTensor(Op.POW);
        return new Expr(Op.POW, List.of(this), shape, dtype, exponent, null, 0, 0);
    }

    /** Rounds to {@code to}: inside a fused region the value is rounded as storing it would. */
    public Expr cast(DType to) {
        Dtypes.requireSupported(to, "cast of " + describe());
        return new Expr(Op.CAST, List.of(this), shape, to, 0, null, 0, 0);
    }

    public Expr cast(String to) { return cast(DType.parse(to)); }

    /** cond ? a : b, elementwise; this node is the condition (non-zero is true). */
    public Expr where(Expr a, Expr b) {
        Shape out = Broadcasting.result(Op.WHERE, List.of(this, a, b));
        return new Expr(Op.WHERE, List.of(this, a, b), out, Dtypes.promote(a, b), 0, null, 0, 0);
    }

    // ---- reductions over the last dim ----

    public Expr sum() { return reduce(Op.SUM); }
    public Expr mean() { return reduce(Op.MEAN); }
    public Expr amax() { return reduce(Op.AMAX); }
    public Expr max() { return amax(); }

    /** Reduces {@code dim}, which must be this node's last dim. */
    public Expr sum(String dim) { requireLast(Op.SUM, dim); return sum(); }
    public Expr mean(String dim) { requireLast(Op.MEAN, dim); return mean(); }
    public Expr amax(String dim) { requireLast(Op.AMAX, dim); return amax(); }

    /** A row scalar repeated along a new last dim. */
    public Expr broadcastTo(Dim last) {
        requireTensor(Op.BROADCAST);
        return new Expr(Op.BROADCAST, List.of(this), shape.append(last), dtype, 0, null, 0, 0);
    }

    /** Sums over every row dim of this node that {@code target} lacks; target keeps this node's last dim. */
    public Expr sumTo(Shape target) { return sumTo(target, dtype); }

    /** The sum stored as {@code to} (it accumulates in fp32 either way). */
    public Expr sumTo(Shape target, DType to) {
        requireTensor(Op.SUM_TO);
        Dtypes.requireSupported(to, "sum_to of " + describe());
        if (target.isScalar() || target.last().size() != shape.last().size() || !shape.rowDims().covers(target.rowDims())) {
            throw new ExprException(Op.SUM_TO.id() + " of " + describe() + " to " + target + ": the target must keep the last dim and a subset of the row dims " + shape.rowDims());
        }
        return new Expr(Op.SUM_TO, List.of(this), target, to, 0, null, 0, 0);
    }

    // ---- views and rearrangements of the last dim ----

    /** Elements start, start + step, ... ({@code count} of them) of the last dim. */
    public Expr slice(int start, int count, int step) {
        requireTensor(Op.SLICE);
        long n = shape.last().size();
        if (start < 0 || step < 1 || count < 1 || start + (long) step * (count - 1) >= n) {
            throw new ExprException("slice(start " + start + ", count " + count + ", step " + step + ") of " + describe() + " runs outside the last dim " + shape.last());
        }
        String dimName = shape.last().name() + (step == 1 ? "[" + start + ":" + (start + count) + "]" : "[" + start + "::" + step + "]");
        return new Expr(Op.SLICE, List.of(this), shape.withLast(new Dim(dimName, count)), dtype, 0, null, start, step);
    }

    public Expr slice(int start, int count) { return slice(start, count, 1); }

    public Expr evens() { return slice(0, evenHalf(), 2); }
    public Expr odds() { return slice(1, evenHalf(), 2); }
    public Expr firstHalf() { return slice(0, evenHalf(), 1); }
    public Expr secondHalf() { return slice(evenHalf(), evenHalf(), 1); }

    /** The last dim regrouped as interleaved (re, im) pairs, for complex RoPE. */
    public Pairs pairs() { evenHalf(); return new Pairs(this); }

    /** The adjoint of a slice: this node's values placed at start + step * j of a zero row of {@code length}. */
    public Expr scatter(int start, int step, Dim length) {
        requireTensor(Op.SCATTER);
        if (start < 0 || step < 1 || start + (long) step * (shape.last().size() - 1) >= length.size()) {
            throw new ExprException("scatter of " + describe() + " at start " + start + ", step " + step + " runs outside " + length);
        }
        return new Expr(Op.SCATTER, List.of(this), shape.withLast(length), dtype, 0, null, start, step);
    }

    /** This node followed by {@code others} along the last dim. */
    public Expr cat(Expr... others) {
        List<Expr> all = new ArrayList<>();
        all.add(this);
        all.addAll(Arrays.asList(others));
        return cat(all);
    }

    public static Expr cat(List<Expr> parts) {
        if (parts.size() < 2) throw new ExprException("cat needs at least two parts, got " + parts);
        Expr first = parts.getFirst();
        long width = 0;
        StringBuilder dimName = new StringBuilder();
        DType dtype = null;
        for (Expr p : parts) {
            p.requireTensor(Op.CAT);
            if (!p.shape.rowDims().equals(first.shape.rowDims())) {
                throw new ExprException("cat of " + p.describe() + " with " + first.describe() + ": row dims " + p.shape.rowDims() + " and " + first.shape.rowDims() + " differ");
            }
            width += p.shape.last().size();
            dimName.append(dimName.isEmpty() ? "" : "+").append(p.shape.last().name());
            dtype = dtype == null ? p.dtype : Dtypes.promote(dtype, p.dtype);
        }
        return new Expr(Op.CAT, parts, first.shape.withLast(new Dim(dimName.toString(), width)), dtype, 0, null, 0, 0);
    }

    /** out[2j] = this[j], out[2j+1] = odd[j]: even and odd parts back into pairs. */
    public Expr interleave(Expr odd) {
        requireTensor(Op.INTERLEAVE);
        if (!shape.equals(odd.shape) && !shape.sameSizes(odd.shape)) {
            throw new ExprException("interleave of " + describe() + " with " + odd.describe() + ": shapes differ");
        }
        Dim d = shape.last();
        return new Expr(Op.INTERLEAVE, List.of(this, odd), shape.withLast(new Dim(d.name() + "*2", 2 * d.size())), Dtypes.promote(this, odd), 0, null, 0, 0);
    }

    /** Complex multiply of interleaved (re, im) pairs; {@code o} broadcasts along named row dims. */
    public Expr cmul(Expr o) {
        evenHalf();
        o.evenHalf();
        Shape s = Broadcasting.result(Op.CMUL, List.of(this, o));
        return new Expr(Op.CMUL, List.of(this, o), s, Dtypes.promote(this, o), 0, null, 0, 0);
    }

    public Expr conj() {
        evenHalf();
        return new Expr(Op.CONJ, List.of(this), shape, dtype, 0, null, 0, 0);
    }

    // ---- helpers ----

    private Expr constant(double c) { return Glue.constant(c); }

    private Expr unary(Op op) {
        requireTensor(op);
        return new Expr(op, List.of(this), shape, dtype, 0, null, 0, 0);
    }

    private Expr binary(Op op, Expr o) {
        Shape s = Broadcasting.result(op, List.of(this, o));
        return new Expr(op, List.of(this, o), s, Dtypes.promote(this, o), 0, null, 0, 0);
    }

    private Expr reduce(Op op) {
        if (shape.isScalar()) throw new ExprException(op.id() + " of " + describe() + ": a scalar has no last dim to reduce");
        return new Expr(op, List.of(this), shape.rowDims(), dtype, 0, null, 0, 0);
    }

    private void requireLast(Op op, String dim) {
        if (shape.isScalar() || !shape.last().name().equals(dim)) {
            String where = shape.indexOf(dim) >= 0 ? "it is not the last dim" : "it is not a dim of this node";
            throw new ExprException(op.id() + " over " + dim + " of " + describe() + ": " + where + " (reductions run over the last dim)");
        }
    }

    private void requireTensor(Op op) {
        if (shape.isScalar()) throw new ExprException(op.id() + " of " + describe() + " needs a tensor, got a scalar");
    }

    private int evenHalf() {
        requireTensor(Op.SLICE);
        long n = shape.last().size();
        if (n % 2 != 0) throw new ExprException(describe() + ": the last dim " + shape.last() + " is odd; pairs and halves need an even one");
        return (int) (n / 2);
    }
}
