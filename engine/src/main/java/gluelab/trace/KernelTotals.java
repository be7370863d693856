package gluelab.trace;

/**
 * All launches of one kernel name: count, total / min / max time (microseconds). grid, block and
 * registers are those of the first launch; {@code shapesVary} when a later launch had another grid
 * or block.
 */
public record KernelTotals(String name, int count, double totalUs, double minUs, double maxUs, int[] grid, int[] block,
                           int registers, boolean shapesVary) {
    public double meanUs() { return totalUs / count; }

    /** One name's running totals while its launches stream by: no allocation per launch. */
    static final class Running {
        final String name;
        final int[] grid, block;
        final int registers;
        int count;
        double total, min = Double.POSITIVE_INFINITY, max = Double.NEGATIVE_INFINITY;
        boolean vary;

        Running(String name, int[] grid, int[] block, int registers) {
            this.name = name;
            this.grid = grid;
            this.block = block;
            this.registers = registers;
        }

        void add(double dur, int[] grid, int[] block) {
            count++;
            total += dur;
            min = Math.min(min, dur);
            max = Math.max(max, dur);
            // grids and blocks are canonical arrays (one per distinct shape), so == settles most launches
            if (!vary && (grid != this.grid && !java.util.Arrays.equals(grid, this.grid) || block != this.block && !java.util.Arrays.equals(block, this.block))) {
                vary = true;
            }
        }

        KernelTotals done() { return new KernelTotals(name, count, total, min, max, grid, block, registers, vary); }
    }
}
