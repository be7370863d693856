package gluelab.calibrate;

import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.files.AtomicFiles;
import gluelab.files.Json;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;
import gluelab.timing.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Measures copy and triad bandwidth over buffers of the size the device asks for
 * ({@link gluelab.device.Capabilities#calibrationBytes()}: several times its last-level cache, so
 * they stream from memory), and peak fp32 FLOP/s; caches the result per device fingerprint.
 */
public final class Calibrator {
    /**
     * The measuring method's version, part of the cache file's name: a calibration cached by an older
     * method is measured again instead of reused (method 2: the CPU's peak FLOP/s from vector FMAs; method 1
     * read about 11 GFLOP/s, so every CPU floor was a FLOP floor).
     */
    static final int METHOD = 2;

    private final Device device;
    private final Path cacheDir;

    /**
     * Busy calibrations measured in this process, by the cache file they were not written to: "used for
     * this run only", the run being the process, so the next lab on the device (the next notebook of
     * a `gluelab run`, the next cell's {@code Gluelab.open}) takes it instead of measuring for a minute
     * on the same busy machine. {@link #calibrate(boolean) calibrate(true)} measures again.
     */
    private static final Map<Path, Calibration> UNCACHED = new java.util.concurrent.ConcurrentHashMap<>();

    public Calibrator(Device device, Path cacheDir) {
        this.device = device;
        this.cacheDir = cacheDir;
    }

    /**
     * A fresh copy bandwidth this much below the cached one says more about the machine's load than
     * about the device; the cached file is kept beside the new one then.
     */
    public static final double SUSPICIOUS_DROP = 0.15;

    /** The cached calibration for this device, or a fresh one (cached when it is quiet). */
    public Calibration calibrate(boolean force) { return calibrate(force, false); }

    /**
     * The cached calibration, unless {@code force} or the cached one was taken on a busy machine:
     * then a fresh one. A fresh one that reads as busy ({@link Disturbance}) is used for this run
     * (the later calibrations of this process take it) but not cached as the device's figure unless
     * {@code acceptBusy}.
     */
    public Calibration calibrate(boolean force, boolean acceptBusy) {
        Path file = cacheFile();
        Calibration cached = null;
        if (Files.isRegularFile(file)) {
            try {
                cached = Json.MAPPER.readValue(file.toFile(), Calibration.class);
            } catch (IOException | RuntimeException e) {
                System.err.println("gluelab: ignoring unreadable calibration cache " + file + ": " + e.getMessage());
            }
        }
        if (!force && cached != null && !cached.isBusy()) return cached.asCached();
        Calibration thisRun = force ? null : UNCACHED.get(file);
        if (thisRun != null) return thisRun;
        if (!force && cached != null) {
            System.err.println("gluelab: the cached calibration (" + cached.measuredAt() + ") was taken on a busy machine (" + cached.busy() + "); measuring again");
        }
        return settle(measure(), cached, acceptBusy);
    }

    /**
     * Caches a fresh calibration {@code c} as the device's figure unless it reads as busy and
     * {@code acceptBusy} is false (then it is used for this run only, and said so); {@code cached}
     * is the one it replaces, or null. Returns {@code c}.
     */
    Calibration settle(Calibration c, Calibration cached, boolean acceptBusy) {
        Path file = cacheFile();
        if (c.isBusy() && !acceptBusy) {
            UNCACHED.put(file, c);
            System.err.println("gluelab: warning: this calibration reads as taken on a busy machine (" + c.busy() + "); it is used for this run"
                    + " only and not cached (calibrate again when the machine is quiet, or keep it with --accept-busy)" + loadNote());
            return c;
        }
        if (cached != null && c.copyMedian() < (1 - SUSPICIOUS_DROP) * cached.copyMedian()) keepPrevious(cached, c, file);
        AtomicFiles.write(file, Json.write(c));
        UNCACHED.remove(file);
        return c;
    }

    /** Where this device's calibration is cached. */
    public Path cacheFile() { return cacheDir.resolve(device.facts().fingerprint() + "-m" + METHOD + ".json"); }

    /** Keeps a much faster earlier calibration beside the new one, and says so. */
    private static void keepPrevious(Calibration old, Calibration now, Path file) {
        Path previous = file.resolveSibling(file.getFileName().toString().replaceFirst("\\.json$", ".previous.json"));
        AtomicFiles.write(previous, Json.write(old));
        System.err.printf(java.util.Locale.ROOT, "gluelab: warning: copy bandwidth measured %.1f GB/s, %.0f%% below the cached %.1f GB/s (measured %s)%s;"
                        + " every ideal time now uses the new figure. A busy machine reads low: calibrate again when it is quiet, or put the"
                        + " earlier one back with: mv %s %s%n",
                now.copyMedian() / 1e9, 100 * (1 - now.copyMedian() / old.copyMedian()), old.copyMedian() / 1e9, old.measuredAt(),
                loadNote(), previous, file);
    }

    /** ", load average L" where the OS reports one. */
    private static String loadNote() {
        double l = gluelab.device.HostLoad.oneMinute();
        return l < 0 ? "" : String.format(java.util.Locale.ROOT, ", load average %.1f", l);
    }

    public Calibration measure() {
        // the size the device asks for, bounded by free memory
        long bytes = Math.min(device.capabilities().calibrationBytes(), Math.max(64L << 20, device.availableMemory() / 8));
        long elements = bytes / 4;
        TimingConfig cfg = new TimingConfig(Mode.HOT, 0.1, new StopRule(10, 0.3, 0.01, 4, 1000), 1);
        Harness harness = new Harness(device);
        OtherLoad load = OtherLoad.start();
        try (Buffer a = device.allocate(TensorSpec.of("a", DType.FP32, elements));
             Buffer b = device.allocate(TensorSpec.of("b", DType.FP32, elements));
             Buffer c = device.allocate(TensorSpec.of("c", DType.FP32, elements));
             Launch triad = device.triadKernel(a, b, c, 3f)) {
            // Every copy form the device has, interleaved; the floor divides by the fastest.
            List<Launch> copies = device.copyKernels(b, a);
            List<String> names = device.copyKernelNames();
            Measurement mc;
            String form;
            Map<String, Double> forms = new LinkedHashMap<>();
            try {
                List<Harness.Subject> subjects = new ArrayList<>();
                for (int i = 0; i < copies.size(); i++) {
                    subjects.add(new Harness.Subject(i < names.size() ? names.get(i) : "copy#" + i, copies.get(i), 2 * bytes, cfg.stop()));
                }
                List<Measurement> all = harness.interleave(subjects, cfg);
                for (int i = 0; i < all.size(); i++) forms.put(subjects.get(i).label(), 2.0 * bytes / all.get(i).summary().median());
                int best = IntStream.range(0, all.size()).boxed().min(Comparator.comparingDouble(i -> all.get(i).summary().median())).orElseThrow();
                mc = all.get(best);
                form = subjects.get(best).label();
            } finally {
                copies.forEach(Launch::close);
            }
            Measurement mt = harness.measure(new Harness.Subject("triad", triad, 3 * bytes, cfg.stop()), cfg);
            double peak = device.capabilities().peakFlops() > 0 ? device.capabilities().peakFlops() : cpuPeakFlops(device.facts().cores());
            double copy = 2.0 * bytes / mc.summary().median(), triadRate = 3.0 * bytes / mt.summary().median();
            double others = load.cores();
            String busy = Disturbance.reason(copy, triadRate, mc.noise(), mt.noise(), others, device.facts().cores());
            return new Calibration(device.facts().fingerprint(), device.facts().name(), elements * 4,
                    copy, 2.0 * bytes / mc.summary().min(), triadRate, 3.0 * bytes / mt.summary().min(), peak,
                    device.facts().theoreticalBandwidth(), Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString(), form, forms, false,
                    finiteOr(mc.noise()), finiteOr(mt.noise()), others, busy);
        }
    }

    private static double finiteOr(double noise) { return Double.isFinite(noise) ? noise : -1; }

    /**
     * fp32 multiply-adds in registers on every core at once: with the Vector API, FMAs on the widest
     * vectors ({@link VectorPeak}), else a loop over an L1-resident array that C2 vectorises. Each
     * kernel is called often enough first to be compiled as a method: timed through on-stack
     * replacement, the scalar loop ran unvectorised and read ~11 GFLOP/s on a 2-core AVX-512 VM, below
     * the glue ops' own rates, so their FLOP floors exceeded their byte floors.
     */
    static double cpuPeakFlops(int cores) {
        boolean vector = gluelab.tensor.Tensor.VECTOR_API;
        java.util.function.IntToDoubleFunction kernel = vector ? reps -> VectorPeak.fmas(reps) : Calibrator::fmaRows;
        double flopsPerRep = vector ? VectorPeak.flopsPerRep() : FMA_WIDTH * 2.0;
        for (int warm = 0; warm < 2000; warm++) kernel.applyAsDouble(64);
        // About 0.1 s a core at 100 GFLOP/s; the best of three, as a peak is.
        int reps = (int) Math.min(Integer.MAX_VALUE, (long) (1e10 / flopsPerRep));
        double best = Double.MAX_VALUE;
        for (int trial = 0; trial < 3; trial++) {
            if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("calibration interrupted");
            long t0 = System.nanoTime();
            double sink = IntStream.range(0, cores).parallel().mapToDouble(i -> kernel.applyAsDouble(reps)).sum();
            best = Math.min(best, (System.nanoTime() - t0) * 1e-9);
            if (sink == 42) System.out.print("");
        }
        return cores * (double) reps * flopsPerRep / best;
    }

    private static final int FMA_WIDTH = 2048;

    private static double fmaRows(int reps) {
        float[] a = new float[FMA_WIDTH];
        java.util.Arrays.fill(a, 1f);
        for (int r = 0; r < reps; r++) fmaRow(a);
        double s = 0;
        for (float v : a) s += v;
        return s;
    }

    private static void fmaRow(float[] a) {
        for (int i = 0; i < FMA_WIDTH; i++) a[i] = a[i] * 0.999999f + 1e-7f;
    }
}
