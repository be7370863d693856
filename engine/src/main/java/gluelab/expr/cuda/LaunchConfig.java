package gluelab.expr.cuda;

import gluelab.expr.lower.RowPlan;

import java.util.ArrayList;
import java.util.List;

/**
 * How a generated region kernel is launched: threads per row (a row's elements are spread over
 * them, 4 to 1024), threads per block (so rows per block = block / threadsPerRow), and a grid cap in blocks
 * per SM (0: one row group per block, no cap; regions that sum over rows cap it, since each block
 * writes one partial row of each sum; a capped grid is one resident wave: fewer blocks an SM where
 * the kernel's registers do not let that many be resident at once), and elements per access: a thread owns runs of {@code vector} neighbours and
 * loads and stores them in 4-16 byte accesses where a row's length allows. A flat region (elementwise
 * over one shape, {@link RowPlan#flat}) is walked as tiles of blockThreads x vector x {@code unroll}
 * elements instead of rows (threads per row = the block; unroll 0 for row kernels), in a grid-stride
 * loop when the grid is capped. Part of the compile key, since the kernel is specialised to it.
 */
public record LaunchConfig(int threadsPerRow, int blockThreads, int blocksPerSm, int vector, int unroll, boolean prefetch) {
    /** The CPU loop has nothing to configure. */
    public static final LaunchConfig CPU = new LaunchConfig(0, 0, 0, 0, 0, false);

    /** A row kernel's configuration. */
    public LaunchConfig(int threadsPerRow, int blockThreads, int blocksPerSm, int vector) { this(threadsPerRow, blockThreads, blocksPerSm, vector, 0, false); }

    /** The same row kernel fetching each row's inputs one row ahead (into a second set of registers), so its loads are in flight across the previous row's reductions. */
    public LaunchConfig prefetching() {
        if (isFlat()) throw new IllegalArgumentException("a flat region has no rows to fetch ahead: " + id());
        return new LaunchConfig(threadsPerRow, blockThreads, blocksPerSm, vector, 0, true);
    }

    /** A flat region's: tiles of {@code block x vector x unroll} elements, {@code blocksPerSm} resident blocks per SM (0: one block per tile). */
    public static LaunchConfig flat(int block, int blocksPerSm, int vector, int unroll) {
        if (unroll < 1 || unroll > 8) throw new IllegalArgumentException("accesses per thread per tile must be 1..8, got " + unroll);
        return new LaunchConfig(block, block, blocksPerSm, vector, unroll, false);
    }

    public boolean isFlat() { return unroll > 0; }

    /** Elements of a flat region's tile. */
    public int tile() { return blockThreads * vector * unroll; }

    public LaunchConfig {
        if (threadsPerRow != 0) {
            if (Integer.bitCount(threadsPerRow) != 1 || threadsPerRow < 4 || threadsPerRow > 1024) {
                throw new IllegalArgumentException("threads per row must be a power of two in 4..1024, got " + threadsPerRow);
            }
            if (blockThreads % threadsPerRow != 0 || blockThreads > 1024) {
                throw new IllegalArgumentException("block of " + blockThreads + " threads must be a multiple of threads per row " + threadsPerRow + " and at most 1024");
            }
            if (blocksPerSm < 0) throw new IllegalArgumentException("blocks per SM must be >= 0, got " + blocksPerSm);
            if (vector != 1 && vector != 2 && vector != 4 && vector != 8) throw new IllegalArgumentException("elements per access must be 1, 2, 4 or 8, got " + vector);
        }
    }

    public int rowsPerBlock() { return blockThreads / threadsPerRow; }

    /** Runs of {@link #vector} elements of a row of {@code length} each thread holds. */
    public int chunks(int length) { return (length + threadsPerRow * vector - 1) / (threadsPerRow * vector); }

    /** Elements of a row of {@code length} each thread holds. */
    public int perThread(int length) { return chunks(length) * vector; }

    public String id() {
        if (threadsPerRow == 0) return "cpu";
        if (isFlat()) return "flat_b" + blockThreads + "_g" + blocksPerSm + "_v" + vector + "_u" + unroll;
        return "tpr" + threadsPerRow + "_b" + blockThreads + "_g" + blocksPerSm + "_v" + vector + (prefetch ? "_pf" : "");
    }

    /**
     * Runs of 8 elements (16-byte bf16 accesses) where the row allows, about 16 elements per
     * thread, rows of a few threads packed into 256-thread blocks (a 128-wide head: 8 threads, 32
     * rows per block); regions that sum over rows keep 4 blocks per SM, each writing one partial row.
     */
    public static LaunchConfig defaultFor(RowPlan plan) {
        int len = plan.maxLength();
        // Elementwise: 16-byte accesses, one per input per thread, 256-thread blocks, one block per tile (the
        // hardware schedules them): the H200's pick for SwiGLU fwd and bwd at 8k and 32k tokens (docs/benchmarks.md).
        if (plan.flat()) return flat(256, 0, widest(len), 1);
        int vector = widest(len);
        int tpr = Math.clamp(Integer.highestOneBit(Math.max(1, (len + 15) / 16 - 1)) * 2, 4, 1024);
        int cap = plan.accumulated().isEmpty() ? 0 : 4;
        if (CudaSource.rowsInShared(plan, new LaunchConfig(tpr, Math.max(tpr, 256), cap, vector))) {
            // Fewer threads per row (or shorter runs) where that lets every slice, cat and pair read registers
            // (e.g. RoPE on 32-element halves of a 192-wide head), as long as a thread holds at most 32 elements.
            search:
            for (int v = vector; v >= 2; v /= 2) {
                if (len % v != 0) continue;
                for (int t = tpr; t >= 4; t /= 2) {
                    LaunchConfig x = new LaunchConfig(t, Math.max(t, 256), cap, v);
                    if (x.perThread(len) > 32) break;
                    if (!CudaSource.rowsInShared(plan, x)) {
                        tpr = t;
                        vector = v;
                        break search;
                    }
                }
            }
        }
        LaunchConfig c = new LaunchConfig(tpr, Math.max(tpr, 256), cap, vector);
        // A block of one row needs no shared row for its partial sums (very long rows).
        return CudaSource.sharedBytes(plan, c) <= CudaSource.MAX_SHARED_BYTES ? c : new LaunchConfig(tpr, tpr, c.blocksPerSm(), vector);
    }

    /** Input values a thread of a flat region holds at once: one run per input per access. */
    private static int loadedPerThread(RowPlan plan, int vector, int unroll) {
        int inputs = 0;
        for (var e : plan.region().inputs()) if (!e.isScalar()) inputs++;
        return inputs * vector * unroll;
    }

    /** The longest run (8, 4, 2 or 1 elements) that divides a row of {@code length}. */
    static int widest(int length) { return length % 8 == 0 ? 8 : length % 4 == 0 ? 4 : length % 2 == 0 ? 2 : 1; }

    /**
     * Every configuration worth timing (what an autotuner sweeps): runs that divide the row, 4 to
     * 32 elements per thread with no thread idle for lack of elements, 256- and 512-thread blocks,
     * 2, 4 or 8 blocks per SM for regions that sum over rows, each also fetching rows ahead where
     * it can; flat regions: tiles of 256 or 512 threads, 1-4 accesses a thread, looping or not.
     */
    public static List<LaunchConfig> candidates(RowPlan plan) {
        List<LaunchConfig> out = new ArrayList<>();
        int len = plan.maxLength();
        if (plan.flat()) {
            // Tiles of 256 or 512 threads, 1, 2 or 4 accesses per thread, a full SM's worth of blocks looping or one block per tile.
            for (int block : new int[]{256, 512}) {
                for (int unroll : new int[]{2, 1, 4}) {
                    if (unroll > 1 && loadedPerThread(plan, widest(len), unroll) > 48) continue;
                    for (int cap : new int[]{2048 / block, 0}) out.add(flat(block, cap, widest(len), unroll));
                }
            }
            return out;
        }
        int[] caps = plan.accumulated().isEmpty() ? new int[]{0} : new int[]{2, 4, 8};
        for (int vector : new int[]{8, 4, 2, 1}) {
            if (len % vector != 0 || (vector == 1 && widest(len) > 1)) continue;
            for (int tpr = 4; tpr <= 1024; tpr *= 2) {
                int per = (len + tpr * vector - 1) / (tpr * vector) * vector;
                if (per > 32 || per < 4 || (long) tpr * vector > 2L * len) continue;
                for (int block : new int[]{256, 512}) {
                    if (block < tpr) continue;
                    for (int cap : caps) {
                        LaunchConfig c = new LaunchConfig(tpr, block, cap, vector);
                        if (CudaSource.sharedBytes(plan, c) > CudaSource.MAX_SHARED_BYTES) continue;
                        out.add(c);
                        // Fetching a row ahead needs a loop over rows (a capped grid: 1024 threads an SM without sums) and
                        // a second set of input registers (16 elements a thread at most).
                        if (per <= 16 && CudaSource.prefetchable(plan, c)) {
                            out.add(new LaunchConfig(tpr, block, cap == 0 ? Math.max(1, 1024 / block) : cap, vector).prefetching());
                        }
                    }
                }
            }
        }
        return out;
    }
}
