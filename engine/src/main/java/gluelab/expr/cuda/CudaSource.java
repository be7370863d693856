package gluelab.expr.cuda;

import gluelab.expr.Expr;
import gluelab.expr.ExprException;
import gluelab.expr.Op;
import gluelab.expr.Region;
import gluelab.expr.lower.Role;
import gluelab.expr.lower.RowPlan;
import gluelab.tensor.DType;

import java.util.List;
import java.util.Locale;

/**
 * Generated CUDA C for one fused region. A group of threads works on one row (4 to 1024 threads,
 * several rows per block when rows are short): each thread holds its elements of every vector node
 * in registers, in runs of VEC neighbours moved as 4-16 byte accesses (element j of a row belongs to
 * thread (j / VEC) mod threadsPerRow), so a row is read once and stays in registers through its
 * reductions (warp shuffles, shared memory across warps) and its pointwise tail. A rearranging
 * primitive (slice, cat, scatter, complex pairs) reads registers when the positions it reads belong
 * to the same thread (aligned shifts, even runs); otherwise the node it reads is kept whole in
 * shared memory. Sums over rows into a vector (weight gradients) gather in registers over the rows
 * a block visits, then one fp32 partial row per block, summed by a second small kernel in a fixed
 * order: no atomics, the same bits every run.
 */
public final class CudaSource {
    public static final int MAX_SHARED_BYTES = 48 * 1024;
    public static final String MAIN = "region_main", ZERO = "region_zero", FINALIZE = "region_finalize";

    /**
     * The source and the kernels in it; workspaces are one fp32 buffer per accumulated output:
     * grid x length partials for a vector (summed by {@link #FINALIZE}), the target itself otherwise (atomics, zeroed by {@link #ZERO}).
     */
    public record Generated(String source, LaunchConfig config, int accumulated, int sharedBytes) {}

    /** Rows of fp32 partial sums one block writes per accumulated vector output: one per block of the grid. */
    public static boolean usesPartials(Expr accumulated) { return partials(accumulated); }

    private final RowPlan plan;
    private final LaunchConfig c;
    private final StringBuilder b = new StringBuilder();
    private boolean hoisting;

    private CudaSource(RowPlan plan, LaunchConfig c) {
        this.plan = plan;
        this.c = c;
    }

    public static Generated generate(RowPlan plan, LaunchConfig c) {
        if (c.threadsPerRow() == 0) throw new IllegalArgumentException("a CUDA region needs a GPU launch configuration, got " + c.id());
        if (c.prefetch() && (c.isFlat() || !prefetchable(plan, c))) {
            throw new IllegalArgumentException("region '" + plan.region().name() + "': " + c.id() + " fetches rows ahead, which needs every row input read as whole runs");
        }
        if (c.isFlat() && !plan.flat()) {
            throw new IllegalArgumentException("region '" + plan.region().name() + "' is not elementwise over one shape; " + c.id() + " is for flat regions only");
        }
        for (Expr e : plan.nodes()) {
            if (e.dtype() == DType.FP64) throw new ExprException(e.describe() + ": the CUDA region computes bf16, fp16 and fp32 only");
        }
        int shared = sharedBytes(plan, c);
        if (shared > MAX_SHARED_BYTES) {
            throw new ExprException("region '" + plan.region().name() + "' needs " + shared + " bytes of shared memory per block with " + c.id()
                    + " (limit " + MAX_SHARED_BYTES + "); use fewer rows per block or split the region");
        }
        return new Generated(new CudaSource(plan, c).emit(), c, plan.accumulated().size(), shared);
    }

    /** Shared memory one block needs: whole rows of the nodes read across, and the reduction scratch. */
    public static int sharedBytes(RowPlan plan, LaunchConfig c) {
        int floats = 2 * c.rowsPerBlock() * Math.max(1, c.threadsPerRow() / 32);
        for (Expr e : plan.nodes()) if (inShared(plan, c, e)) floats += c.rowsPerBlock() * plan.length(e);
        if (c.rowsPerBlock() > 1) for (Expr e : plan.accumulated()) if (partials(e)) floats += plan.length(e);
        return 4 * floats;
    }

    /** Whether some node of the region goes through shared memory in this configuration (a rearranging read across threads). */
    public static boolean rowsInShared(RowPlan plan, LaunchConfig c) {
        for (Expr e : plan.nodes()) if (inShared(plan, c, e)) return true;
        return false;
    }

    /** A node some rearranging primitive reads at positions other threads own: kept whole per row in shared memory. */
    private static boolean inShared(RowPlan plan, LaunchConfig c, Expr e) {
        if (e.op() == Op.INPUT || plan.role(e) != Role.VECTOR) return false;
        for (Expr user : plan.nodes()) {
            if (user.op().kind() == Op.Kind.REMAP && user.args().contains(e) && !inRegisters(plan, c, user)) return true;
        }
        return false;
    }

    /**
     * Whether a rearranging node finds every element it reads in the reading thread's own registers:
     * a shift by whole multiples of TPR*VEC (slices, cat, scatter at aligned offsets) stays in the
     * thread, a different register; a complex pair stays within a run when runs are even.
     */
    static boolean inRegisters(RowPlan plan, LaunchConfig c, Expr e) {
        int span = c.threadsPerRow() * c.vector();
        return switch (e.op()) {
            case SLICE, SCATTER -> e.step() == 1 && e.start() % span == 0;
            case CAT -> {
                int at = 0;
                for (Expr p : e.args()) {
                    if (at % span != 0) yield false;
                    at += plan.length(p);
                }
                yield true;
            }
            case CMUL -> c.vector() % 2 == 0 && plan.length(e.arg(0)) == plan.length(e) && plan.length(e.arg(1)) == plan.length(e);
            case CONJ -> plan.length(e.arg(0)) == plan.length(e);
            default -> false;
        };
    }

    /** Sums over rows into a vector (a weight's gradient) go through per-block partials, summed by the finalize kernel in a fixed order. */
    static boolean partials(Expr e) { return e.shape().rank() == 1; }

    private String emit() {
        Region r = plan.region();
        List<Expr> nodes = plan.nodes();
        int tpr = c.threadsPerRow(), rpb = c.rowsPerBlock(), wpr = Math.max(1, tpr / 32);
        // Rows is an argument and the outermost row dim's size appears nowhere else (but in sums over
        // rows into tensors that keep it), so the content-keyed compile cache shares a cubin across token counts.
        line("// gluelab generated region (%d nodes)", nodes.size());
        line("typedef unsigned short u16;");
        line("__device__ __forceinline__ float bf2f(u16 b) { return __uint_as_float(((unsigned)b) << 16); }");
        // Rounding to bf16 (to nearest even) is one instruction on sm_80 and later, two values at once for a packed store.
        line("#if __CUDA_ARCH__ >= 800");
        line("__device__ __forceinline__ u16 f2bf(float f) { u16 h; asm(\"cvt.rn.bf16.f32 %%0, %%1;\" : \"=h\"(h) : \"f\"(f)); return h; }");
        line("__device__ __forceinline__ unsigned bf2x(float lo, float hi) { unsigned w; asm(\"cvt.rn.bf16x2.f32 %%0, %%1, %%2;\" : \"=r\"(w) : \"f\"(hi), \"f\"(lo)); return w; }");
        line("#else");
        line("__device__ __forceinline__ u16 f2bf(float f) { unsigned u = __float_as_uint(f); if ((u & 0x7fffffffu) > 0x7f800000u) return (u16)((u >> 16) | 0x40u); return (u16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16); }");
        line("__device__ __forceinline__ unsigned bf2x(float lo, float hi) { return (unsigned)f2bf(lo) | ((unsigned)f2bf(hi) << 16); }");
        line("#endif");
        line("__device__ __forceinline__ float h2f(u16 h) { float f; asm(\"cvt.f32.f16 %%0, %%1;\" : \"=f\"(f) : \"h\"(h)); return f; }");
        line("__device__ __forceinline__ u16 f2h(float f) { u16 h; asm(\"cvt.rn.f16.f32 %%0, %%1;\" : \"=h\"(h) : \"f\"(f)); return h; }");
        line("__device__ __forceinline__ float sigm(float x) { return __frcp_rn(1.f + __expf(-x)); }");
        line("__device__ __forceinline__ float inf_() { return __int_as_float(0x7f800000); }");
        line("static constexpr int TPR = %d;", tpr);
        line("static constexpr int RPB = %d;", rpb);
        line("static constexpr int WPR = %d;", wpr);
        line("static constexpr int VEC = %d;", c.vector());
        List<Expr> body = rowsInShared(plan, c) ? nodes : byPhase(nodes);
        int batch = Math.max(1, widestBatch(body));
        line("static constexpr int RW = WPR * %d;", batch);
        line("__device__ __forceinline__ constexpr int cl(int i, int n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }");
        // Sums across warps with one barrier: reductions alternate between two scratch buffers (red[par]),
        // so a warp writing the next one never overwrites slots another warp is still reading.
        line("__device__ __forceinline__ float row_sum(float v, float (*red)[RW], int rib, int t) {");
        line("  for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);");
        line("  if (WPR > 1) { if ((t & 31) == 0) red[rib][t >> 5] = v; __syncthreads(); v = 0.f; for (int w = 0; w < WPR; w++) v += red[rib][w]; }");
        line("  return v;");
        line("}");
        // N independent sums of a row across warps behind one barrier (the hand norm kernels' group_sums).
        line("template <int N> __device__ __forceinline__ void row_sums(float (&v)[N], float (*red)[RW], int rib, int t) {");
        line("  #pragma unroll");
        line("  for (int i = 0; i < N; i++) for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o >>= 1) v[i] += __shfl_xor_sync(0xffffffffu, v[i], o);");
        line("  if (WPR > 1) {");
        line("    if ((t & 31) == 0) { _Pragma(\"unroll\") for (int i = 0; i < N; i++) red[rib][i * WPR + (t >> 5)] = v[i]; }");
        line("    __syncthreads();");
        line("    _Pragma(\"unroll\") for (int i = 0; i < N; i++) { v[i] = 0.f; for (int w = 0; w < WPR; w++) v[i] += red[rib][i * WPR + w]; }");
        line("  }");
        line("}");
        line("__device__ __forceinline__ float row_max(float v, float (*red)[RW], int rib, int t) {");
        line("  for (int o = (TPR < 32 ? TPR : 32) / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));");
        line("  if (WPR > 1) { if ((t & 31) == 0) red[rib][t >> 5] = v; __syncthreads(); v = -inf_(); for (int w = 0; w < WPR; w++) v = fmaxf(v, red[rib][w]); }");
        line("  return v;");
        line("}");
        StringBuilder params = new StringBuilder();
        for (Expr in : r.inputs()) params.append("const ").append(ctype(in.dtype())).append("* __restrict__ in").append(plan.index(in)).append(", ");
        for (Expr o : r.written().values()) {
            if (plan.role(o) == Role.ACCUMULATE) params.append("float* __restrict__ ws").append(plan.index(o)).append(", ");
            else params.append(ctype(o.dtype())).append("* __restrict__ out").append(plan.index(o)).append(", ");
        }
        for (Expr p : r.params()) params.append("float p").append(plan.index(p)).append(", ");
        params.append(c.isFlat() ? "long long n" : "long long rows");
        line("extern \"C\" __global__ void __launch_bounds__(%d) %s(%s) {", c.blockThreads(), MAIN, params);
        line("  const int t = threadIdx.x %% TPR, rib = threadIdx.x / TPR;");
        line("  __shared__ float red[2][RPB][RW]; int par = 0; (void)par;");
        boolean anyShared = false;
        for (Expr e : nodes) {
            if (inShared(plan, c, e)) {
                line("  __shared__ float sm%d[RPB][%d];", plan.index(e), plan.length(e));
                anyShared = true;
            }
        }
        for (Expr e : plan.accumulated()) {
            if (e.shape().rank() == 1) line("  float acc%d[%d] = {0};", plan.index(e), c.perThread(plan.length(e)));
        }
        // Inputs every row reads whole (a norm's weight) are loaded once, before the loop over rows.
        hoisting = true;
        for (Expr e : nodes) if (hoisted(e)) node(e);
        hoisting = false;
        if (c.isFlat()) {
            // Tiles of the flat run of n elements, one per block at a time (grid-stride when the grid is capped); the last one is partial.
            line("  for (long long row = blockIdx.x; row * %dLL < n; row += gridDim.x) {", c.tile());
            line("    const long long left = n - row * %dLL; const int lim = left < %d ? (int)left : %d; const bool act = true;", c.tile(), c.tile(), c.tile());
        } else {
            if (c.prefetch()) {
                // The first row's inputs, before the loop (the loop then fetches one row ahead).
                for (Expr e : nodes) if (streamed(e)) line("  unsigned n%d[%d];", plan.index(e), c.chunks(len(e)) * runWords(e));
                line("  {");
                rowIndices("(long long)blockIdx.x * RPB + rib");
                for (Expr e : nodes) if (streamed(e)) prefetch(e);
                line("  }");
            }
            line("  for (long long base = (long long)blockIdx.x * RPB; base < rows; base += (long long)gridDim.x * RPB) {");
            rowIndices("base + rib");
        }
        if (anyShared) line("    __syncthreads();");
        // Every input of the row is loaded first, all loads in flight together (each masked load is a
        // branch, which would otherwise keep a later input's loads behind the work on an earlier one),
        // unless the loaded values would take more than half the registers a thread has at this block size.
        int loaded = 0;
        for (Expr e : nodes) if (e.op() == Op.INPUT && !hoisted(e)) loaded += plan.role(e) == Role.VECTOR ? c.perThread(len(e)) : 1;
        boolean inputsFirst = c.prefetch() || loaded <= Math.min(255, 65536 / c.blockThreads()) / 2;
        if (c.prefetch()) {
            // This row's inputs were loaded one iteration ago; the next row's loads go out now, in flight across this row's work.
            for (Expr e : nodes) {
                if (!streamed(e)) continue;
                fetched(e);
                // Reads across threads of this row's input go to memory at its offset.
                line("    const long long o%d = %s; (void)o%d;", plan.index(e), offset(e), plan.index(e));
            }
            line("    {");
            rowIndices("base + (long long)gridDim.x * RPB + rib");
            for (Expr e : nodes) if (streamed(e)) prefetch(e);
            line("    }");
        }
        if (inputsFirst && !c.prefetch()) {
            // Whole runs are loaded as raw words for every input before any is widened (a widening waits for its load).
            for (Expr e : nodes) {
                if (!rawLoaded(e)) continue;
                line("    unsigned n%d[%d];", plan.index(e), c.chunks(len(e)) * runWords(e));
                prefetch(e);
            }
            for (Expr e : nodes) if (rawLoaded(e)) fetched(e);
            for (Expr e : nodes) if (e.op() == Op.INPUT && !hoisted(e) && !rawLoaded(e)) node(e);
        }
        List<Expr> rest = new java.util.ArrayList<>();
        for (Expr e : body) if (!hoisted(e) && !(inputsFirst && e.op() == Op.INPUT)) rest.add(e);
        for (int k = 0; k < rest.size(); ) {
            int end = k;
            while (end < rest.size() && summed(rest.get(end))) end++;
            if (end - k >= 2) {
                sums(rest.subList(k, end));
                k = end;
            } else {
                node(rest.get(k++));
            }
        }
        line("  }");
        for (Expr e : plan.accumulated()) {
            if (!partials(e)) continue;
            int i = plan.index(e), len = len(e);
            // One partial row per block: the block's rows summed in a fixed order (deterministic), no atomics.
            if (rpb == 1) {
                forEach(e, "if (j < %d) ws%d[(long long)blockIdx.x * %d + j] = acc%d[kk];".formatted(len, i, len, i));
            } else {
                // The block's row groups add into one shared row in turn.
                line("  __shared__ float part%d[%d];", i, len);
                line("  for (int r = 0; r < RPB; r++) {");
                line("    if (rib == r) {");
                forEach(e, "if (j < %d) part%d[j] = r == 0 ? acc%d[kk] : part%d[j] + acc%d[kk];".formatted(len, i, i, i, i));
                line("    }");
                line("    __syncthreads();");
                line("  }");
                line("  for (int j = threadIdx.x; j < %d; j += blockDim.x) ws%d[(long long)blockIdx.x * %d + j] = part%d[j];", len, i, len, i);
            }
        }
        line("}");
        finalizeKernels();
        return b.toString();
    }

    /** Declares row (from {@code first}), act and the row's indices i0, i1, ... in the current scope. */
    private void rowIndices(String first) {
        line("    const long long row = %s; const bool act = row < rows;", first);
        long[] sizes = plan.rowSpace().sizes();
        line("    long long rr = row;");
        for (int d = sizes.length - 1; d >= 0; d--) {
            if (d == 0) line("    const long long i0 = rr;");
            else line("    const long long i%d = rr %% %dLL; rr /= %dLL;", d, sizes[d], sizes[d]);
        }
    }

    /** A row input loaded as whole runs of raw words, widened after every input's loads are out. */
    private boolean rawLoaded(Expr e) {
        return streamed(e) && plan.role(e) == Role.VECTOR && wide(e) && !plan.region().outputs().containsValue(e);
    }

    /** An input read row by row (not hoisted): what a prefetching kernel fetches a row ahead. */
    private boolean streamed(Expr e) { return e.op() == Op.INPUT && !hoisted(e); }

    /** Whether every row input can be fetched a row ahead: read as whole runs into registers (no per-row scalars). */
    public static boolean prefetchable(RowPlan plan, LaunchConfig c) {
        for (Expr e : plan.nodes()) {
            if (e.op() == Op.INPUT && plan.region().outputs().containsValue(e)) return false;
            if (e.op() != Op.INPUT || plan.role(e) == Role.SCALAR) continue;
            boolean everyRow = false;
            for (long s : plan.rowStrides(e)) everyRow |= s != 0;
            if (!everyRow) continue;
            if (plan.role(e) != Role.VECTOR || c.vector() == 1 || plan.length(e) % c.vector() != 0 || c.vector() * e.dtype().bytes() < 4) return false;
        }
        return true;
    }

    /** Loads the row's runs of input {@code e} into n&lt;index&gt; (the next row's registers, raw words). */
    private void prefetch(Expr e) {
        line("    const long long o%d = %s;", plan.index(e), offset(e));
        vectorLoad(e, "n" + plan.index(e), true);
    }

    private void node(Expr e) {
        int i = plan.index(e);
        Role role = plan.role(e);
        boolean out = plan.region().outputs().containsValue(e);
        int len = len(e);
        if (role != Role.SCALAR) line("    const long long o%d = %s;", i, offset(e));
        switch (e.op()) {
            case INPUT -> {
                if (role == Role.VECTOR && wide(e)) vectorLoad(e);
                else if (role == Role.VECTOR) vector(e, "(act && j < %s) ? %s : 0.f".formatted(bound(e), load(e, "o" + i + " + j")));
                else line("    const float s%d = act ? %s : 0.f;", i, load(e, "o" + i));
            }
            case CONST -> line("    const float s%d = %s;", i, literal(e.num()));
            case PARAM -> line("    const float s%d = p%d;", i, i);
            case SUM, MEAN, AMAX -> {
                rowPart(e);
                line("    s%d = %s(s%d, red[par], rib, t); par ^= 1;", i, e.op() == Op.AMAX ? "row_max" : "row_sum", i);
                if (e.op() == Op.MEAN) line("    s%d *= %s;", i, literal(1.0 / len(e.arg(0))));
            }
            case SLICE, SCATTER, CAT, CMUL, CONJ -> {
                if (inRegisters(plan, c, e)) inRegisters(e);
                else acrossThreads(e);
            }
            case INTERLEAVE -> acrossThreads(e);
            case SUM_TO -> {
                Expr a = e.arg(0);
                if (role == Role.VECTOR) vector(e, at(a));
                else if (e.shape().rank() == 1) forEach(a, "acc%d[kk] += act ? %s : 0.f;".formatted(i, at(a)));
                else forEach(a, "if (act && j < %d) atomicAdd(&ws%d[o%d + j], %s);".formatted(len, i, i, at(a)));
            }
            case CAST -> pointwise(e, round(e.dtype(), at(e.arg(0))));
            case BROADCAST -> pointwise(e, at(e.arg(0)));
            default -> pointwise(e, math(e));
        }
        stored(e);
    }

    /** This thread's part of a row reduction, into s&lt;index&gt;. */
    private void rowPart(Expr e) {
        Expr a = e.arg(0);
        int i = plan.index(e), n = len(a);
        boolean max = e.op() == Op.AMAX;
        line("    float s%d = %s;", i, max ? "-inf_()" : "0.f");
        forEach(a, "if (j < %d) s%d = %s;".formatted(n, i, max ? "fmaxf(s" + i + ", " + at(a) + ")" : "s" + i + " + " + at(a)));
    }

    /** Independent row sums (none reads another) completed together: one barrier for all of them. */
    private void sums(List<Expr> run) {
        for (Expr e : run) {
            if (plan.role(e) != Role.SCALAR) line("    const long long o%d = %s;", plan.index(e), offset(e));
            rowPart(e);
        }
        StringBuilder names = new StringBuilder(), back = new StringBuilder();
        for (int k = 0; k < run.size(); k++) {
            int i = plan.index(run.get(k));
            names.append(k == 0 ? "" : ", ").append('s').append(i);
            back.append(" s").append(i).append(" = sb[").append(k).append("];");
        }
        line("    { float sb[%d] = {%s}; row_sums<%d>(sb, red[par], rib, t);%s } par ^= 1;", run.size(), names, run.size(), back);
        for (Expr e : run) {
            if (e.op() == Op.MEAN) line("    s%d *= %s;", plan.index(e), literal(1.0 / len(e.arg(0))));
            stored(e);
        }
    }

    private static boolean summed(Expr e) { return e.op() == Op.SUM || e.op() == Op.MEAN; }

    /**
     * The nodes reordered so that row reductions that do not read one another come one after the
     * other (then {@link #sums} completes them behind one barrier): a reduction's phase is one more
     * than the latest phase of the reductions it reads, any other node's the latest phase it reads;
     * each phase's pointwise nodes, then the next phase's reductions, each in the original order.
     */
    static List<Expr> byPhase(List<Expr> nodes) {
        java.util.Map<Expr, Integer> key = new java.util.IdentityHashMap<>();
        for (Expr e : nodes) {
            int phase = 0;
            for (Expr a : e.args()) {
                Integer k = key.get(a);
                if (k != null) phase = Math.max(phase, (k + 1) / 2);
            }
            boolean reduces = e.op() == Op.SUM || e.op() == Op.MEAN || e.op() == Op.AMAX;
            key.put(e, reduces ? 2 * phase + 1 : 2 * phase);
        }
        List<Expr> out = new java.util.ArrayList<>(nodes);
        out.sort(java.util.Comparator.comparingInt(key::get));
        return out;
    }

    /** The most consecutive sums {@link #sums} completes together in this order. */
    private static int widestBatch(List<Expr> order) {
        int best = 0, run = 0;
        for (Expr e : order) {
            run = summed(e) ? run + 1 : 0;
            best = Math.max(best, run);
        }
        return best;
    }

    /** What follows a node's value: its shared row, its store where it is an output. */
    private void stored(Expr e) {
        int i = plan.index(e), len = len(e);
        Role role = plan.role(e);
        boolean out = plan.region().outputs().containsValue(e);
        if (inShared(plan, c, e)) {
            forEach(e, "if (j < %d) sm%d[rib][j] = v%d[kk];".formatted(len, i, i));
            line("    __syncthreads();");
        }
        if (out && role == Role.VECTOR && wide(e)) vectorStore(e);
        else if (out && role == Role.VECTOR) forEach(e, "if (act && j < %s) %s;".formatted(bound(e), store(e, "o" + i + " + j", "v" + i + "[kk]")));
        if (out && role == Role.ROW) line("    if (act && t == 0) %s;", store(e, "o" + i, "s" + i));
    }

    /** A rearranging node whose reads all stay in this thread: registers at indices fixed once the loops unroll. */
    private void inRegisters(Expr e) {
        int len = len(e), span = c.threadsPerRow() * c.vector();
        switch (e.op()) {
            case SLICE -> vector(e, "j < %d ? %s : 0.f".formatted(len, reg(e.arg(0), "kk + " + (e.start() / span) * c.vector())));
            case SCATTER -> {
                int m = e.start() / span, n = len(e.arg(0));
                vector(e, "(k >= %d && j < %d) ? %s : 0.f".formatted(m, e.start() + n, reg(e.arg(0), "kk - " + m * c.vector())));
            }
            case CAT -> {
                StringBuilder x = new StringBuilder();
                int at = 0;
                for (Expr p : e.args()) {
                    int n = len(p);
                    x.append("j < ").append(at + n).append(" ? ").append(reg(p, "kk - " + (at / span) * c.vector())).append(" : ");
                    at += n;
                }
                vector(e, x + "0.f");
            }
            case CMUL -> {
                String ar = reg(e.arg(0), "kk & ~1"), ai = reg(e.arg(0), "kk | 1"), br = reg(e.arg(1), "kk & ~1"), bi = reg(e.arg(1), "kk | 1");
                vector(e, "j < %d ? ((kk & 1) ? %s * %s + %s * %s : %s * %s - %s * %s) : 0.f".formatted(len, ar, bi, ai, br, ar, br, ai, bi));
            }
            case CONJ -> vector(e, "j < %d ? ((j & 1) ? -%s : %s) : 0.f".formatted(len, at(e.arg(0)), at(e.arg(0))));
            default -> throw new IllegalStateException("no register form for " + e.describe());
        }
    }

    /** Register {@code idx} of a vector node, clamped into its array (out-of-range only in branches the row's length masks). */
    private String reg(Expr a, String idx) { return "v" + plan.index(a) + "[cl(" + idx + ", " + c.perThread(len(a)) + ")]"; }

    /** A rearranging node reading positions other threads own: through shared memory (or global memory for inputs). */
    private void acrossThreads(Expr e) {
        int len = len(e);
        switch (e.op()) {
            case SLICE -> vector(e, "j < %d ? %s : 0.f".formatted(len, read(e.arg(0), e.start() + " + " + e.step() + " * j")));
            case SCATTER -> {
                int n = len(e.arg(0));
                vector(e, "(j >= %d && (j - %d) %% %d == 0 && (j - %d) / %d < %d) ? %s : 0.f".formatted(e.start(), e.start(), e.step(), e.start(), e.step(), n,
                        read(e.arg(0), "(j - " + e.start() + ") / " + e.step())));
            }
            case CAT -> {
                StringBuilder x = new StringBuilder();
                int at = 0;
                for (Expr p : e.args()) {
                    int n = len(p);
                    x.append("j < ").append(at + n).append(" ? ").append(read(p, "j - " + at)).append(" : ");
                    at += n;
                }
                vector(e, x + "0.f");
            }
            case INTERLEAVE -> vector(e, "j < %d ? ((j & 1) ? %s : %s) : 0.f".formatted(len, read(e.arg(1), "(j >> 1)"), read(e.arg(0), "(j >> 1)")));
            case CMUL -> {
                Expr a = e.arg(0), bb = e.arg(1);
                vector(e, ("j < %d ? ((j & 1) ? %s * %s + %s * %s : %s * %s - %s * %s) : 0.f").formatted(len,
                        read(a, "(j & ~1)"), read(bb, "(j | 1)"), read(a, "(j | 1)"), read(bb, "(j & ~1)"),
                        read(a, "(j & ~1)"), read(bb, "(j & ~1)"), read(a, "(j | 1)"), read(bb, "(j | 1)")));
            }
            case CONJ -> vector(e, "j < %d ? ((j & 1) ? -%s : %s) : 0.f".formatted(len, read(e.arg(0), "j"), read(e.arg(0), "j")));
            default -> throw new IllegalStateException("not a rearranging node: " + e.describe());
        }
    }

    private boolean hoisted(Expr e) {
        // A flat region walks its one run in tiles: nothing is read whole by every tile (a one-row region is flat too).
        if (c.isFlat() || e.op() != Op.INPUT || plan.role(e) != Role.VECTOR) return false;
        for (long s : plan.rowStrides(e)) if (s != 0) return false;
        return true;
    }

    private String math(Expr e) {
        String a = at(e.arg(0)), b1 = e.args().size() > 1 ? at(e.arg(1)) : "", c1 = e.args().size() > 2 ? at(e.arg(2)) : "";
        return switch (e.op()) {
            case NEG -> "-" + a;
            case EXP -> "__expf(" + a + ")";
            case LOG -> "__logf(" + a + ")";
            case SQRT -> "sqrtf(" + a + ")";
            case RSQRT -> "rsqrtf(" + a + ")";
            case SIGMOID -> "sigm(" + a + ")";
            case SILU -> "(" + a + " * sigm(" + a + "))";
            case TANH -> "tanhf(" + a + ")";
            case POW -> e.num() == 2 ? "(" + a + " * " + a + ")" : e.num() == 3 ? "(" + a + " * " + a + " * " + a + ")" : "powf(" + a + ", " + literal(e.num()) + ")";
            case ADD -> "(" + a + " + " + b1 + ")";
            case SUB -> "(" + a + " - " + b1 + ")";
            case MUL -> "(" + a + " * " + b1 + ")";
            case DIV -> "(" + a + " / " + b1 + ")";
            case GT -> "(" + a + " > " + b1 + " ? 1.f : 0.f)";
            case LT -> "(" + a + " < " + b1 + " ? 1.f : 0.f)";
            case GE -> "(" + a + " >= " + b1 + " ? 1.f : 0.f)";
            case LE -> "(" + a + " <= " + b1 + " ? 1.f : 0.f)";
            case EQ -> "(" + a + " == " + b1 + " ? 1.f : 0.f)";
            case WHERE -> "(" + a + " != 0.f ? " + b1 + " : " + c1 + ")";
            default -> throw new IllegalStateException("no CUDA for " + e.describe());
        };
    }

    private void pointwise(Expr e, String value) {
        if (plan.role(e) == Role.VECTOR) vector(e, value);
        else line("    const float s%d = %s;", plan.index(e), value);
    }

    private void vector(Expr e, String value) {
        int i = plan.index(e);
        line("    float v%d[%d];", i, c.perThread(len(e)));
        forEach(e, "v%d[kk] = %s;".formatted(i, value));
    }

    /** Each element this thread owns: register kk, row position j (runs of VEC neighbours, TPR runs apart). */
    private void forEach(Expr e, String body) {
        line("    #pragma unroll");
        line("    for (int k = 0; k < %d; k++) {", c.chunks(len(e)));
        line("      #pragma unroll");
        line("      for (int u = 0; u < VEC; u++) { const int kk = k * VEC + u, j = (k * TPR + t) * VEC + u; (void)j; (void)kk; %s }", body);
        line("    }");
    }

    /** A vector node's row length, or a flat region's tile. */
    private int len(Expr e) { return c.isFlat() ? c.tile() : plan.length(e); }

    /** The positions of a row (tile) that exist: its length, or the elements left in a flat region's last tile. */
    private String bound(Expr e) { return c.isFlat() ? "lim" : Integer.toString(plan.length(e)); }

    /** Whole runs can move as 4 to 16 byte accesses: the row length is a multiple of the run and a run is at least a word. */
    private boolean wide(Expr e) { return c.vector() > 1 && len(e) % c.vector() == 0 && c.vector() * e.dtype().bytes() >= 4; }

    /** A run of VEC elements read as words (uint4, uint2 or unsigned pieces), then widened to fp32. */
    private void vectorLoad(Expr e) {
        line("    float v%d[%d];", plan.index(e), c.perThread(len(e)));
        vectorLoad(e, "v" + plan.index(e), false);
    }

    /**
     * Loads this thread's runs of input {@code e} into {@code into}: fp32 values, or (raw) the words
     * as loaded, widened only where used, so a load fetched ahead is not waited for before its use.
     */
    private void vectorLoad(Expr e, String into, boolean raw) {
        int i = plan.index(e), words = runWords(e);
        line("    #pragma unroll");
        line("    for (int k = 0; k < %d; k++) {", c.chunks(len(e)));
        line("      const int j0 = (k * TPR + t) * VEC; unsigned w[%d];", words);
        line("      if (act && j0 < %s) {", bound(e));
        line("        const unsigned* p = reinterpret_cast<const unsigned*>(in%d + o%d + j0);", i, i);
        pieces(words, true);
        line("      } else {");
        line("        #pragma unroll");
        line("        for (int x = 0; x < %d; x++) w[x] = 0u;", words);
        line("      }");
        line("      #pragma unroll");
        if (raw) line("      for (int x = 0; x < %d; x++) %s[k * %d + x] = w[x];", words, into, words);
        else widen(e, into);
        line("    }");
    }

    /** Words of one run of input {@code e}. */
    private int runWords(Expr e) { return c.vector() * e.dtype().bytes() / 4; }

    /** The run k of words w[] widened to fp32 into {@code into}. */
    private void widen(Expr e, String into) {
        line("      for (int u = 0; u < VEC; u++) %s[k * VEC + u] = %s;", into, switch (e.dtype()) {
            case BF16 -> "__uint_as_float((u & 1) ? (w[u >> 1] & 0xffff0000u) : (w[u >> 1] << 16))";
            case FP16 -> "h2f((u16)((u & 1) ? (w[u >> 1] >> 16) : (w[u >> 1] & 0xffffu)))";
            default -> "__uint_as_float(w[u])";
        });
    }

    /** This row's input e, fetched one iteration ago as raw words (n&lt;index&gt;), widened into v&lt;index&gt;. */
    private void fetched(Expr e) {
        int i = plan.index(e);
        line("    float v%d[%d];", i, c.perThread(len(e)));
        line("    #pragma unroll");
        line("    for (int k = 0; k < %d; k++) {", c.chunks(len(e)));
        line("      const unsigned* w = &n%d[k * %d];", i, runWords(e));
        line("      #pragma unroll");
        widen(e, "v" + i);
        line("    }");
    }

    /** A run of VEC fp32 values narrowed to the output's dtype and written as words. */
    private void vectorStore(Expr e) {
        int i = plan.index(e), words = c.vector() * e.dtype().bytes() / 4;
        line("    #pragma unroll");
        line("    for (int k = 0; k < %d; k++) {", c.chunks(len(e)));
        line("      const int j0 = (k * TPR + t) * VEC; unsigned w[%d];", words);
        line("      #pragma unroll");
        line("      for (int x = 0; x < %d; x++) w[x] = %s;", words, switch (e.dtype()) {
            case BF16 -> "bf2x(v%d[k * VEC + 2 * x], v%d[k * VEC + 2 * x + 1])".formatted(i, i);
            case FP16 -> "(unsigned)f2h(v%d[k * VEC + 2 * x]) | ((unsigned)f2h(v%d[k * VEC + 2 * x + 1]) << 16)".formatted(i, i);
            default -> "__float_as_uint(v%d[k * VEC + x])".formatted(i);
        });
        line("      if (act && j0 < %s) {", bound(e));
        line("        unsigned* p = reinterpret_cast<unsigned*>(out%d + o%d + j0);", i, i);
        pieces(words, false);
        line("      }");
        line("    }");
    }

    /** Moves {@code words} words between p and w in the widest aligned pieces (a run's bytes are aligned to its size). */
    private void pieces(int words, boolean load) {
        int at = 0;
        while (at < words) {
            int n = words - at >= 4 ? 4 : words - at >= 2 ? 2 : 1;
            String type = n == 4 ? "uint4" : n == 2 ? "uint2" : "unsigned";
            if (load) {
                line("        { const %s q = *reinterpret_cast<const %s*>(p + %d); %s }", type, type, at, unpack(n, at));
            } else {
                line("        { %s q; %s *reinterpret_cast<%s*>(p + %d) = q; }", type, pack(n, at), type, at);
            }
            at += n;
        }
    }

    private static String unpack(int n, int at) {
        if (n == 1) return "w[" + at + "] = q;";
        String[] f = {"x", "y", "z", "w"};
        StringBuilder s = new StringBuilder();
        for (int x = 0; x < n; x++) s.append("w[").append(at + x).append("] = q.").append(f[x]).append("; ");
        return s.toString();
    }

    private static String pack(int n, int at) {
        if (n == 1) return "q = w[" + at + "];";
        String[] f = {"x", "y", "z", "w"};
        StringBuilder s = new StringBuilder();
        for (int x = 0; x < n; x++) s.append("q.").append(f[x]).append(" = w[").append(at + x).append("]; ");
        return s.toString();
    }

    /** A node's value at this thread's element kk (vectors) or its row/scalar value. */
    private String at(Expr a) { return plan.role(a) == Role.VECTOR ? "v" + plan.index(a) + "[kk]" : "s" + plan.index(a); }

    /** Element {@code idx} of a vector node's row, wherever it sits: global memory for inputs, else shared. */
    private String read(Expr a, String idx) {
        if (a.op() == Op.INPUT) return "(act ? " + load(a, "o" + plan.index(a) + " + (" + idx + ")") + " : 0.f)";
        return "sm" + plan.index(a) + "[rib][" + idx + "]";
    }

    private String offset(Expr e) {
        if (c.isFlat()) return "row * " + c.tile() + "LL";
        long[] s = plan.rowStrides(e);
        StringBuilder x = new StringBuilder();
        for (int d = 0; d < s.length; d++) {
            if (s[d] == 0) continue;
            x.append(x.isEmpty() ? "" : " + ").append("i").append(d).append(" * ").append(s[d]).append("LL");
        }
        return x.isEmpty() ? "0LL" : x.toString();
    }

    private String load(Expr in, String idx) {
        String p = "in" + plan.index(in) + "[" + idx + "]";
        return switch (in.dtype()) {
            case BF16 -> "bf2f(" + p + ")";
            case FP16 -> "h2f(" + p + ")";
            default -> p;
        };
    }

    private String store(Expr o, String idx, String v) {
        String p = "out" + plan.index(o) + "[" + idx + "]";
        return switch (o.dtype()) {
            case BF16 -> p + " = f2bf(" + v + ")";
            case FP16 -> p + " = f2h(" + v + ")";
            default -> p + " = " + v;
        };
    }

    private static String round(DType d, String v) {
        return switch (d) {
            case BF16 -> "bf2f(f2bf(" + v + "))";
            case FP16 -> "h2f(f2h(" + v + "))";
            default -> v;
        };
    }

    static String ctype(DType d) { return d == DType.FP32 ? "float" : "u16"; }

    private static String literal(double v) {
        if (Double.isInfinite(v)) return v > 0 ? "inf_()" : "-inf_()";
        return String.format(Locale.ROOT, "%.9ef", (float) v);
    }

    /**
     * Zeroing the atomic workspaces before the main kernel, and after it storing every workspace in
     * its output's dtype: partial rows summed over the grid's blocks by 32 lanes per column in a
     * fixed order (the same bits every run), atomic targets copied.
     */
    private void finalizeKernels() {
        List<Expr> acc = plan.accumulated();
        if (acc.isEmpty()) return;
        StringBuilder ws = new StringBuilder(), outs = new StringBuilder();
        for (Expr e : acc) {
            ws.append("float* ws").append(plan.index(e)).append(", ");
            outs.append(ctype(e.dtype())).append("* out").append(plan.index(e)).append(", ");
        }
        if (!acc.stream().allMatch(CudaSource::partials)) {
            line("extern \"C\" __global__ void %s(%slong long unused) {", ZERO, ws);
            line("  const long long step = (long long)gridDim.x * blockDim.x; const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;");
            for (Expr e : acc) if (!partials(e)) line("  for (long long i = first; i < %dLL; i += step) ws%d[i] = 0.f;", e.shape().elements(), plan.index(e));
            line("}");
        }
        // Launched with 32 x 32 threads per block and one block per 32 columns of the longest output.
        line("extern \"C\" __global__ void __launch_bounds__(1024) %s(%s%slong long parts) {", FINALIZE, ws, outs);
        line("  __shared__ float lane[32][33];");
        line("  const int x = threadIdx.x & 31, y = threadIdx.x >> 5; const long long col = (long long)blockIdx.x * 32 + x;");
        for (Expr e : acc) {
            int i = plan.index(e);
            long n = e.shape().elements();
            if (partials(e)) {
                line("  { float s = 0.f; if (col < %dLL) for (long long g = y; g < parts; g += 32) s += ws%d[g * %dLL + col];", n, i, n);
                line("    lane[y][x] = s; __syncthreads();");
                line("    if (y == 0 && col < %dLL) { float t = 0.f; for (int r = 0; r < 32; r++) t += lane[r][x]; %s; }", n, store(e, "col", "t"));
                line("    __syncthreads(); }");
            } else {
                line("  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < %dLL; i += (long long)gridDim.x * blockDim.x) %s;",
                        n, store(e, "i", "ws" + i + "[i]"));
            }
        }
        line("}");
    }

    private void line(String format, Object... args) {
        String text = String.format(Locale.ROOT, format, args);
        // Before the loop over rows every thread loads: no row to be past the end of.
        if (hoisting) text = text.replace("act && ", "").replace("(act ? ", "(true ? ");
        b.append(text).append('\n');
    }
}
