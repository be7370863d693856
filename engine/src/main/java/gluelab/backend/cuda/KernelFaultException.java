package gluelab.backend.cuda;

/** A user kernel faulted (illegal address, misaligned access, trap) in the kernel worker process. */
public final class KernelFaultException extends IllegalStateException {
    public KernelFaultException(String message) { super(message); }
}
