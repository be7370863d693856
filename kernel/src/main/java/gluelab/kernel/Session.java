package gluelab.kernel;

import gluelab.device.cuda.UserKernel;
import gluelab.devlog.Devlog;
import gluelab.lab.Gluelab;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * State a notebook session shares between magics and user code: the lab (device) the magics use,
 * the devlog, kernels compiled with %%cuda, and where display() output goes.
 */
public final class Session {
    private static volatile Gluelab lab;
    private static volatile Devlog devlog = new Devlog(Path.of("out", "devlog.md"));
    private static final Map<String, UserKernel> CUDA = new ConcurrentHashMap<>();
    private static volatile Consumer<Object> display = o -> System.out.println(o);

    private Session() {}

    /** The session's lab, opened on first use (device auto). */
    public static synchronized Gluelab lab() {
        if (lab == null) lab = Gluelab.open();
        return lab;
    }

    public static synchronized Gluelab switchDevice(String selector) {
        Gluelab next = Gluelab.open(selector);
        if (lab != null) lab.close();
        lab = next;
        return lab;
    }

    public static Devlog devlog() { return devlog; }

    public static void devlog(Path file) { devlog = new Devlog(file); }

    public static UserKernel cudaKernel(String name) {
        UserKernel k = CUDA.get(name);
        if (k == null) throw new IllegalArgumentException("no %%cuda kernel named '" + name + "'; compiled so far: " + CUDA.keySet());
        return k;
    }

    static void putCudaKernel(String name, UserKernel k) { CUDA.put(name, k); }

    /** Shows a value below the cell (a Table, a chart, a result) while the cell runs. */
    public static void display(Object value) { if (value != null) display.accept(value); }

    public static void displaySink(Consumer<Object> sink) { display = sink == null ? o -> System.out.println(o) : sink; }

    public static synchronized void reset() {
        if (lab != null) lab.close();
        lab = null;
        CUDA.clear();
    }
}
