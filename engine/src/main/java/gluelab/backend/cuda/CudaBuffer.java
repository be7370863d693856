package gluelab.backend.cuda;

import gluelab.device.Buffer;
import gluelab.tensor.TensorSpec;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUipcMemHandle;
import jcuda.driver.JCudaDriver;

import java.lang.reflect.Field;
import java.util.Base64;

/** Device memory holding one tensor. */
public final class CudaBuffer implements Buffer {
    private final CudaDevice device;
    private final TensorSpec spec;
    private final CUdeviceptr ptr;
    private final Object lock = new Object();
    private boolean closed;
    private String ipcHandle;

    CudaBuffer(CudaDevice device, TensorSpec spec, CUdeviceptr ptr) {
        this.device = device;
        this.spec = spec;
        this.ptr = ptr;
    }

    @Override public TensorSpec spec() { return spec; }

    CUdeviceptr ptr() {
        if (closed) throw new IllegalStateException("buffer " + spec + " is closed");
        return ptr;
    }

    CudaDevice device() { return device; }

    /**
     * The CUDA IPC handle (base64) through which the kernel worker process maps this memory; made once.
     */
    String ipcHandle() {
        synchronized (lock) {
            return exportedHandle();
        }
    }

    private String exportedHandle() {
        if (ipcHandle == null) {
            CUipcMemHandle h = new CUipcMemHandle();
            device.makeCurrent();
            JCudaDriver.cuIpcGetMemHandle(h, ptr());
            ipcHandle = Base64.getEncoder().encodeToString(bytesOf(h));
        }
        return ipcHandle;
    }

    /** Rebuilds an IPC handle from its base64 text (in the worker process). */
    static CUipcMemHandle handleOf(String base64) {
        CUipcMemHandle h = new CUipcMemHandle();
        byte[] raw = Base64.getDecoder().decode(base64), into = bytesOf(h);
        if (raw.length != into.length) throw new IllegalArgumentException("an IPC handle has " + into.length + " bytes, got " + raw.length);
        System.arraycopy(raw, 0, into, 0, raw.length);
        return h;
    }

    /** The handle's own byte array (JCuda keeps it private, with no accessor). */
    private static byte[] bytesOf(CUipcMemHandle h) {
        try {
            Field bytes = CUipcMemHandle.class.getDeclaredField("reserved");
            bytes.setAccessible(true);
            return (byte[]) bytes.get(h);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot reach the bytes of a CUDA IPC handle in JCuda: " + e, e);
        }
    }

    @Override public void close() {
        String exported;
        synchronized (lock) {
            if (closed) return;
            closed = true;
            exported = ipcHandle;
        }
        if (exported != null) device.released(exported);
        device.free(ptr);
    }
}
