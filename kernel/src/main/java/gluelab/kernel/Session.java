package gluelab.kernel;

import gluelab.backend.cuda.UserKernel;
import gluelab.devlog.Devlog;
import gluelab.lab.Gluelab;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * What a notebook session shares between magics and user code: the lab (device) the magics use,
 * the devlog, kernels compiled with %%cuda, and where display() output goes. The kernel (or the
 * headless runner) owns one; user code in JShell reaches it as {@link #current()}, since a snippet
 * can only name a static.
 */
public final class Session implements AutoCloseable {
    private static volatile Session current = new Session();

    private Gluelab lab;
    private volatile Devlog devlog = new Devlog(Path.of("out", "devlog.md"));
    private final Map<String, UserKernel> cuda = new ConcurrentHashMap<>();
    private volatile Consumer<Object> display;

    /** A session whose display() prints the value. */
    public Session() { this(null); }

    /** A session whose display() output goes to {@code sink} (the kernel's display channel; null prints). */
    public Session(Consumer<Object> sink) { display = sink == null ? System.out::println : sink; }

    /** The session JShell snippets in this JVM see (the last one a cell runner was made for). */
    public static Session current() { return current; }

    static void makeCurrent(Session s) { current = s; }

    /** The session's lab, opened on first use (device auto). */
    public synchronized Gluelab lab() {
        if (lab == null) lab = Gluelab.open();
        return lab;
    }

    /** Opens the lab on {@code selector} and closes the one before. */
    public synchronized Gluelab switchDevice(String selector) {
        Gluelab next = Gluelab.open(selector);
        if (lab != null) lab.close();
        lab = next;
        return lab;
    }

    public Devlog devlog() { return devlog; }

    public void devlog(Path file) { devlog = new Devlog(file); }

    public UserKernel cudaKernel(String name) {
        UserKernel k = cuda.get(name);
        if (k == null) throw new IllegalArgumentException("no %%cuda kernel named '" + name + "'; compiled so far: " + cuda.keySet());
        return k;
    }

    void putCudaKernel(String name, UserKernel k) { cuda.put(name, k); }

    /** Shows a value below the running cell (a Table, a chart, a result). */
    public void show(Object value) { if (value != null) display.accept(value); }

    /** Shows a value below the cell (a Table, a chart, a result) while the cell runs: {@code display(x)} in user code. */
    public static void display(Object value) { current().show(value); }

    /** Closes the lab and forgets the compiled kernels. */
    @Override public synchronized void close() {
        if (lab != null) lab.close();
        lab = null;
        cuda.clear();
    }
}
