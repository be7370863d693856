package gluelab.device;

/** A prepared op on a device: run() enqueues it (the CPU runs it to completion). */
public interface Launch extends AutoCloseable {
    void run();

    /** Kernels (primitive passes) one run() launches. */
    int kernels();

    /** Runs of the op one run() performs (a CUDA graph replays several); samples are divided by it. */
    default int repeats() { return 1; }

    /** Extra memory the launch holds beyond its arguments (eager intermediates). */
    long scratchBytes();

    /** Independent buffer sets its runs rotate through (a bench's placements); 1 for a launch bound to one set. */
    default int placements() { return 1; }

    @Override default void close() {}
}
