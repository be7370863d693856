package gluelab.backend.cuda;

import gluelab.device.DeviceTimer;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.JCudaDriver;

/**
 * Times with CUDA events. start() first enqueues a kernel that holds the stream until stop() is
 * called, so everything enqueued between them runs back to back on the GPU and host enqueue
 * latency is not timed (nvbench's blocking kernel). A sample taken with the SM clock under 75% of
 * its maximum is marked invalid (throttled) and the harness discards it.
 */
final class CudaTimer implements DeviceTimer {
    private final CudaDevice device;
    private final CUevent start = new CUevent(), stop = new CUevent();
    private boolean valid = true;

    CudaTimer(CudaDevice device) {
        this.device = device;
        device.makeCurrent();
        JCudaDriver.cuEventCreate(start, CUevent_flags.CU_EVENT_DEFAULT);
        JCudaDriver.cuEventCreate(stop, CUevent_flags.CU_EVENT_DEFAULT);
    }

    @Override public void start() {
        device.makeCurrent();
        device.holdStream();
        JCudaDriver.cuEventRecord(start, device.stream());
    }

    @Override public void stop() {
        JCudaDriver.cuEventRecord(stop, device.stream());
        device.releaseStream();
    }

    @Override public double elapsedSeconds() {
        float[] ms = new float[1];
        device.guard(() -> {
            JCudaDriver.cuEventSynchronize(stop);
            JCudaDriver.cuEventElapsedTime(ms, start, stop);
        });
        valid = device.clockOk();
        return ms[0] * 1e-3;
    }

    @Override public boolean lastSampleValid() { return valid; }
}
