package gluelab.device;

/** A prepared op on a device: run() enqueues it (the CPU runs it to completion). */
public interface Launch extends AutoCloseable {
    void run();

    /** Kernels (primitive passes) one run() launches. */
    int kernels();

    /** Extra memory the launch holds beyond its arguments (eager intermediates). */
    long scratchBytes();

    @Override default void close() {}
}
