package gluelab.device;

/** Times work enqueued between start() and stop(): wall clock on the CPU, events on a GPU. */
public interface DeviceTimer {
    void start();

    void stop();

    /** Seconds between start and stop; waits for the device where needed. */
    double elapsedSeconds();

    /** False when the last sample ran under conditions that invalidate it (a throttled GPU); it is discarded. */
    default boolean lastSampleValid() { return true; }
}
