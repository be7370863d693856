package gluelab.progress;

/** Receives progress of long work; the CLI draws a bar, the notebook kernel updates a display. */
@FunctionalInterface
public interface Progress {
    Progress NONE = (task, done, total, detail) -> {};

    /** Where new labs report by default: nothing, or the notebook's progress bar inside the kernel. */
    java.util.concurrent.atomic.AtomicReference<Progress> DEFAULT = new java.util.concurrent.atomic.AtomicReference<>(NONE);

    /** {@code done} of {@code total} steps of {@code task} are finished; detail names the current step. */
    void update(String task, long done, long total, String detail);
}
