package gluelab.expr.cuda;

import gluelab.expr.lower.RowPlan;

import java.util.ArrayList;
import java.util.List;

/**
 * How a generated region kernel is launched: threads per row (a row's elements are spread over
 * them, 4 to 1024), threads per block (so rows per block = block / threadsPerRow), and a grid cap in blocks
 * per SM (0: one row group per block, no cap; regions that sum over rows cap it, since each block
 * writes one partial row of each sum), and elements per access: a thread owns runs of {@code vector} neighbours and
 * loads and stores them in 4-16 byte accesses where a row's length allows. Part of the compile key,
 * since the kernel is specialised to it.
 */
public record LaunchConfig(int threadsPerRow, int blockThreads, int blocksPerSm, int vector) {
    /** The CPU loop has nothing to configure. */
    public static final LaunchConfig CPU = new LaunchConfig(0, 0, 0, 0);

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

    public String id() { return threadsPerRow == 0 ? "cpu" : "tpr" + threadsPerRow + "_b" + blockThreads + "_g" + blocksPerSm + "_v" + vector; }

    /**
     * Runs of 8 elements (16-byte bf16 accesses) where the row allows, about 16 elements per
     * thread, rows of a few threads packed into 256-thread blocks (a 128-wide head: 8 threads, 32
     * rows per block); regions that sum over rows keep 4 blocks per SM, each writing one partial row.
     */
    public static LaunchConfig defaultFor(RowPlan plan) {
        int len = plan.maxLength();
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

    /** The longest run (8, 4, 2 or 1 elements) that divides a row of {@code length}. */
    static int widest(int length) { return length % 8 == 0 ? 8 : length % 4 == 0 ? 4 : length % 2 == 0 ? 2 : 1; }

    /**
     * Every configuration worth timing (what an autotuner sweeps): runs that divide the row, 4 to
     * 32 elements per thread with no thread idle for lack of elements, 256- and 512-thread blocks,
     * and 2, 4 or 8 blocks per SM for regions that sum over rows.
     */
    public static List<LaunchConfig> candidates(RowPlan plan) {
        List<LaunchConfig> out = new ArrayList<>();
        int len = plan.maxLength();
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
                        if (CudaSource.sharedBytes(plan, c) <= CudaSource.MAX_SHARED_BYTES) out.add(c);
                    }
                }
            }
        }
        return out;
    }
}
