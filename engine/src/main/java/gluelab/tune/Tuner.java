package gluelab.tune;

import gluelab.check.Checker;
import gluelab.check.Correctness;
import gluelab.device.*;
import gluelab.ops.OpShape;
import gluelab.progress.Progress;
import gluelab.files.Json;
import gluelab.timing.Harness;
import gluelab.timing.Measurement;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;

import java.util.*;

/**
 * The autotuner. For one op instance on a {@link Tunable} device: compile every configuration in
 * parallel before any benchmarking (or, with {@code serial}, compile and time them one after
 * another, the slow path kept for comparison), try each once and skip those that cannot run (with
 * the reason), time the rest interleaved with the harness by successive halving (every config
 * briefly, the best third longer, ..., the finalists with the full stop rule), check the fastest against fp64 (the
 * next one if it fails), and store the pick and this record beside the compile cache. A cached
 * pick is returned as is: a warm run compiles and times nothing.
 */
public final class Tuner {
    /** How to tune: compile threads, the serial slow path, re-tune despite a cached pick, the stop rule per config, the check size. */
    public record Options(int threads, boolean serial, boolean force, TimingConfig timing, long checkTokens, boolean shipped) {
        public Options {
            if (threads < 1) throw new IllegalArgumentException("--threads must be >= 1, got " + threads);
            if (checkTokens < 1) throw new IllegalArgumentException("the check size must be >= 1 token, got " + checkTokens);
        }

        /**
         * All cores, parallel, cached picks kept, a short cold stop rule per config, checked at 16
         * tokens; an instance with a shipped pick tuned at its very shape is not tuned again (bench's
         * way; {@code gluelab tune} tunes it, and its pick then overrides the shipped one).
         */
        public static Options defaults() {
            return new Options(Runtime.getRuntime().availableProcessors(), false, false,
                    new TimingConfig(Mode.COLD, 0.02, new StopRule(10, 0.05, 0.02, 0.5, 100_000), 10), 16, true);
        }

        public Options withSerial(boolean s) { return new Options(threads, s, force, timing, checkTokens, shipped); }

        public Options withForce(boolean f) { return new Options(threads, serial, f, timing, checkTokens, shipped); }

        public Options withThreads(int t) { return new Options(t, serial, force, timing, checkTokens, shipped); }

        /** Whether a shipped pick tuned at an instance's shape stands in for tuning it. */
        public Options withShipped(boolean s) { return new Options(threads, serial, force, timing, checkTokens, s); }
    }

    private final Device device;
    private final Tunable tunable;
    private final Options options;

    public Tuner(Device device, Options options) {
        this(device, device.tunable().orElseThrow(() -> new IllegalArgumentException("device " + device.id() + " has no tunable kernels")), options);
    }

    /** A tuner over another space of the device's kernels (variant region's: {@link ExpressionVariant#tunable}). */
    public Tuner(Device device, Tunable tunable, Options options) {
        this.device = device;
        this.tunable = tunable;
        this.options = options;
    }

    /** The tuner for an op variant: the device's hand kernels (fused) or the generated regions (region); empty for others. */
    public static Optional<Tuner> forVariant(Device device, gluelab.ops.Variant v, Options options) {
        return switch (v) {
            case FUSED -> device.tunable().map(t -> new Tuner(device, t, options));
            case REGION -> ExpressionVariant.get().tunable(device).map(t -> new Tuner(device, t, options));
            default -> Optional.empty();
        };
    }

    /** True when the instance's fused kernel has more than one valid configuration. */
    public boolean tunable(OpInstance in) { return tunable.configs(in).size() > 1; }

    /** The stored tuning of the instance, if any (nothing is compiled or run). */
    public Optional<TuneResult> cached(OpInstance in) {
        return tunable.picks().record(ConfigPicks.Key.of(in, tunable.codeId(in))).map(Tuner::read).map(TuneResult::asCached);
    }

    /**
     * The shipped pick tuned at exactly this instance's shape, as a tuning that compiled and timed
     * nothing here (its times are the reference GPU's), where the options let it stand in for a tune.
     */
    public Optional<TuneResult> shippedAtShape(OpInstance in) {
        if (!options.shipped() || options.force()) return Optional.empty();
        List<KernelConfig> configs = tunable.configs(in);
        return tunable.shipped().pick(in, configs).filter(ShippedPicks.Match::exact).map(m -> {
            ConfigPicks.Key key = ConfigPicks.Key.of(in, tunable.codeId(in));
            ShippedPicks.Pick p = m.pick();
            String kernel = configs.stream().filter(c -> c.id().equals(p.config())).findFirst().map(KernelConfig::kernel).orElse("");
            return new TuneResult(in.op().name(), in.pass().id(), in.shape().dtype().id(), in.shape().tokens(), key.shape(), key.code(), kernel,
                    TuneResult.SHIPPED, configs.size(), 0, 0, 0, 0, p.config(), p.runnerUp(), p.pickUs(), p.runnerUpUs(), Double.NaN, Double.NaN,
                    List.of(), 0, 1, tunable.shipped().status(), true);
        });
    }

    private static TuneResult read(String json) {
        try {
            return Json.MAPPER.readValue(json, TuneResult.class);
        } catch (Exception e) {
            throw new IllegalStateException("unreadable tuning record: " + e.getMessage(), e);
        }
    }

    /** What a compile batch gave one tuning: its configs' outcomes, in their order, and the batch's accounting. */
    public record Compiled(List<Tunable.CompileOutcome> outcomes, double wallSeconds, int shared, int processes, String how) {}

    /** Ends the compilers {@link #compileTogether} started (compile worker processes). */
    public void stopCompilers() { tunable.stopCompilers(); }

    /**
     * Compiles every config of these instances in one batch, before any is timed (the parallel
     * path): one pool kept busy across kernels instead of a short batch per kernel.
     */
    public Map<OpInstance, Compiled> compileTogether(List<OpInstance> instances, Progress progress) {
        List<Tunable.CompileJob> jobs = new ArrayList<>();
        for (OpInstance in : instances) for (KernelConfig c : tunable.configs(in)) jobs.add(new Tunable.CompileJob(in, c));
        progress.update("tune: compile", 0, jobs.size(), jobs.size() + " configs of " + instances.size() + " kernels");
        long t0 = System.nanoTime();
        Tunable.CompileBatch batch = tunable.compileBatch(jobs, options.threads());
        double wall = (System.nanoTime() - t0) * 1e-9;
        progress.update("tune: compile", jobs.size(), jobs.size(), String.format(Locale.ROOT, "%.2f s on %s", wall, batch.how()));
        String how = String.format(Locale.ROOT, "one batch of %d configs for %d tunings on %s", jobs.size(), instances.size(), batch.how());
        Map<OpInstance, Compiled> out = new LinkedHashMap<>();
        int i = 0;
        for (OpInstance in : instances) {
            int n = tunable.configs(in).size();
            out.put(in, new Compiled(batch.outcomes().subList(i, i + n), wall, instances.size(), batch.processes(), how));
            i += n;
        }
        return out;
    }

    public TuneResult tune(OpInstance in, Progress progress) { return tune(in, progress, null); }

    /**
     * Tunes the instance; on the parallel path with {@code compiled} from {@link #compileTogether}
     * (null: its configs are compiled now, as a batch of their own).
     */
    public TuneResult tune(OpInstance in, Progress progress, Compiled compiled) {
        List<KernelConfig> configs = tunable.configs(in);
        if (configs.size() <= 1) {
            throw new IllegalArgumentException(in.label() + " has " + (configs.isEmpty() ? "no kernel configurations" : "one kernel configuration")
                    + " on " + device.id() + ": nothing to tune");
        }
        ConfigPicks.Key key = ConfigPicks.Key.of(in, tunable.codeId(in));
        if (!options.force()) {
            Optional<TuneResult> c = cached(in);
            if (c.isPresent()) return c.get();
        }
        String kernel = configs.getFirst().kernel();
        Map<String, Buffer> args = new LinkedHashMap<>();
        try {
            OpBuffers.allocate(device, in.op(), in.shape(), in.pass(), 42, args);
            Harness harness = new Harness(device);
            double compileSum = 0, compileWall, benchSeconds;
            int compiledCount = 0, shared = 1, processes = 0;
            String how = "one at a time in this process, each config timed before the next compiles";
            Map<KernelConfig, ConfigResult> results = new LinkedHashMap<>();
            Map<KernelConfig, Launch> ready = new LinkedHashMap<>();
            List<KernelConfig> ranking = null;
            try {
                if (options.serial()) {
                    // The slow path: each config compiled inline, then timed, before the next compiles.
                    long t0 = System.nanoTime();
                    double bench = 0;
                    for (int i = 0; i < configs.size(); i++) {
                        KernelConfig c = configs.get(i);
                        progress.update("tune " + in.op().name() + " " + in.pass().id() + " (serial)", i, configs.size(), c.id());
                        Tunable.CompileOutcome o = tunable.compile(in, List.of(c), 1).getFirst();
                        compileSum += o.seconds();
                        if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("tuning interrupted");
                        if (o.compiled()) compiledCount++;
                        long b0 = System.nanoTime();
                        Launch l = tryPrepare(in, args, c, o, results);
                        if (l != null) {
                            ready.put(c, l);
                            Measurement m = harness.measure(new Harness.Subject(c.id(), l, 0, options.timing().stop()), options.timing());
                            results.put(c, measured(c, o, m));
                        }
                        bench += (System.nanoTime() - b0) * 1e-9;
                    }
                    compileWall = (System.nanoTime() - t0) * 1e-9 - bench;
                    benchSeconds = bench;
                } else {
                    Compiled batch = compiled != null ? compiled : compileTogether(List.of(in), progress).get(in);
                    List<Tunable.CompileOutcome> outcomes = batch.outcomes();
                    compileWall = batch.wallSeconds();
                    shared = batch.shared();
                    processes = batch.processes();
                    how = batch.how();
                    long b0 = System.nanoTime();
                    for (Tunable.CompileOutcome o : outcomes) {
                        compileSum += o.seconds();
                        if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("tuning interrupted");
                        if (o.compiled()) compiledCount++;
                        Launch l = tryPrepare(in, args, o.config(), o, results);
                        if (l != null) ready.put(o.config(), l);
                    }
                    Halving h = halve(harness, ready, "tune " + in.op().name() + " " + in.pass().id() + ": time", progress);
                    for (KernelConfig c : ready.keySet()) {
                        Tunable.CompileOutcome o = outcomes.get(configs.indexOf(c));
                        results.put(c, measured(c, o, h.measured().get(c)));
                    }
                    ranking = h.ranking();
                    benchSeconds = (System.nanoTime() - b0) * 1e-9;
                }
            } finally {
                ready.values().forEach(Launch::close);
            }
            List<KernelConfig> ranked = new ArrayList<>(results.keySet().stream().filter(c -> results.get(c).valid()).toList());
            ranked.sort(Comparator.comparingDouble(c -> results.get(c).medianUs()));
            // Halving ranks the finalists first (by their full-rule medians), then each earlier round's configs.
            if (ranking != null) ranked.sort(Comparator.comparingInt(ranking::indexOf));
            KernelConfig pick = null;
            Correctness check = null;
            for (KernelConfig c : ranked) {
                if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("tuning interrupted");
                Correctness r = new Checker(device, (inst, a) -> tunable.prepare(inst, a, c)).check(in.op(), checkShape(in), in.pass(), in.variant());
                if (r.passed()) {
                    pick = c;
                    check = r;
                    break;
                }
                ConfigResult old = results.get(c);
                results.put(c, ConfigResult.skipped(c.id(), old.compileSeconds(), old.compiled(),
                        String.format(Locale.ROOT, "wrong against fp64 (rel L2 %.2e, tolerance %.1e)", r.worstRelL2(), r.tolerance())));
            }
            if (pick == null) throw nothingValid(in, configs, results);
            KernelConfig picked = pick;
            KernelConfig runnerUp = ranked.stream().filter(c -> !c.equals(picked) && results.get(c).valid()).findFirst().orElse(null);
            List<ConfigResult> ordered = new ArrayList<>();
            for (KernelConfig c : configs) ordered.add(results.get(c));
            TuneResult t = new TuneResult(in.op().name(), in.pass().id(), in.shape().dtype().id(), in.shape().tokens(), key.shape(), key.code(), kernel,
                    options.serial() ? "serial" : processes > 0 ? "parallel x" + processes + " procs" : "parallel x" + options.threads(),
                    configs.size(), compileWall, compileSum, compiledCount, benchSeconds,
                    pick.id(), runnerUp == null ? null : runnerUp.id(), results.get(pick).medianUs(),
                    runnerUp == null ? Double.NaN : results.get(runnerUp).medianUs(), check.worstRelL2(), check.worstUlp(), ordered,
                    processes, shared, how, false);
            tunable.picks().store(key, pick.id(), Json.write(t));
            return t;
        } finally {
            args.values().forEach(Buffer::close);
        }
    }

    /** Configs left for the last round, which times them with the full stop rule. */
    static final int FINALISTS = 3;
    /** A round keeps the best third of its configs (and any within this fraction of the round's best). */
    static final double KEEP_FRACTION = 1.0 / 3, WITHIN_BEST = 0.01;

    /**
     * Successive halving: every config timed briefly (interleaved, a few samples), the best third
     * kept (and those within 1% of the round's best: a brief median is noisy), timed longer, and so
     * on until {@link #FINALISTS} are left, timed with the options' full stop rule. Each config's
     * measurement is that of the last round it was in. A space's cap on timing seconds
     * ({@link Tunable#timingSecondsPerKernel}, the CPU's) bounds every round's timeout.
     */
    /** What halving gave: each config's last measurement, and the configs ranked (the last round's by median first, then each earlier round's). */
    record Halving(Map<KernelConfig, Measurement> measured, List<KernelConfig> ranking) {}

    private Halving halve(Harness harness, Map<KernelConfig, Launch> ready, String label, Progress progress) {
        List<List<KernelConfig>> rounds = new ArrayList<>();
        Map<KernelConfig, Measurement> last = new LinkedHashMap<>();
        List<KernelConfig> alive = new ArrayList<>(ready.keySet());
        StopRule full = options.timing().stop();
        double cap = tunable.timingSecondsPerKernel();
        int timed = 0, total = alive.size();
        for (int round = 0; !alive.isEmpty(); round++) {
            boolean finalRound = alive.size() <= FINALISTS;
            StopRule rule = finalRound ? full : briefRule(full, round);
            if (Double.isFinite(cap)) rule = rule.withTimeout(Math.max(0.005, Math.min(rule.timeoutSeconds(), cap / (3.0 * alive.size()))));
            progress.update(label, timed, total, (finalRound ? "final round: " : "round " + (round + 1) + ": ") + alive.size() + " configs interleaved");
            List<Harness.Subject> subjects = new ArrayList<>();
            for (KernelConfig c : alive) subjects.add(new Harness.Subject(c.id(), ready.get(c), 0, rule));
            List<Measurement> ms = harness.interleave(subjects, options.timing().withStop(rule));
            for (int i = 0; i < alive.size(); i++) last.put(alive.get(i), ms.get(i));
            List<KernelConfig> ranked = new ArrayList<>(alive);
            ranked.sort(Comparator.comparingDouble(c -> last.get(c).summary().median()));
            rounds.add(ranked);
            if (finalRound) break;
            double best = last.get(ranked.getFirst()).summary().median();
            int keep = Math.max(FINALISTS, (int) Math.ceil(ranked.size() * KEEP_FRACTION));
            List<KernelConfig> next = new ArrayList<>();
            for (int i = 0; i < ranked.size(); i++) {
                if (i < keep || last.get(ranked.get(i)).summary().median() <= best * (1 + WITHIN_BEST)) next.add(ranked.get(i));
            }
            timed += alive.size() - next.size();
            // No progress (every config within 1% of the best): the final round decides.
            alive = next.size() == alive.size() ? next.subList(0, Math.min(next.size(), keep)) : next;
        }
        progress.update(label, total, total, "done");
        List<KernelConfig> ranking = new ArrayList<>();
        for (int r = rounds.size() - 1; r >= 0; r--) for (KernelConfig c : rounds.get(r)) if (!ranking.contains(c)) ranking.add(c);
        return new Halving(last, ranking);
    }

    /** A brief round's rule: a few samples, a looser noise bound, a fraction of the full timeout (longer each round). */
    static StopRule briefRule(StopRule full, int round) {
        double share = Math.min(1.0, 0.1 * (1 << round));
        return new StopRule(Math.min(full.minSamples(), 3 + 2 * round), full.minSeconds() * share, Math.max(full.maxNoise(), 0.05),
                Math.max(0.005, full.timeoutSeconds() * share), full.maxSamples());
    }

    /** The instance's shape at the check's few tokens (every other dim kept, so the config stays valid). */
    private OpShape checkShape(OpInstance in) {
        Map<String, Long> dims = new LinkedHashMap<>(in.shape().dims());
        dims.put("T", Math.min(options.checkTokens(), in.shape().tokens()));
        return new OpShape(in.shape().op(), dims, in.shape().dtype(), in.shape().params());
    }

    private Launch tryPrepare(OpInstance in, Map<String, Buffer> args, KernelConfig c, Tunable.CompileOutcome o, Map<KernelConfig, ConfigResult> results) {
        if (o.error().isPresent()) {
            results.put(c, ConfigResult.skipped(c.id(), o.seconds(), o.compiled(), o.error().get()));
            return null;
        }
        Launch l = null;
        try {
            l = tunable.prepare(in, args, c);
            l.run();
            device.synchronize();
            return l;
        } catch (Tunable.ConfigRejected e) {
            results.put(c, ConfigResult.skipped(c.id(), o.seconds(), o.compiled(), e.getMessage()));
        } catch (RuntimeException e) {
            results.put(c, ConfigResult.skipped(c.id(), o.seconds(), o.compiled(), "fails at launch: " + e.getMessage()));
        }
        if (l != null) l.close();
        return null;
    }

    private static ConfigResult measured(KernelConfig c, Tunable.CompileOutcome o, Measurement m) {
        return new ConfigResult(c.id(), o.seconds(), o.compiled(), m.summary().median() * 1e6, m.summary().relStdev(), m.samples().length, null);
    }

    private IllegalStateException nothingValid(OpInstance in, List<KernelConfig> configs, Map<KernelConfig, ConfigResult> results) {
        StringBuilder b = new StringBuilder("no valid kernel configuration for " + in.op().name() + " " + in.pass().id() + " at " + in.shape()
                + " on " + device.id() + ":");
        for (KernelConfig c : configs) {
            ConfigResult r = results.get(c);
            b.append("\n  ").append(c.id()).append(": ").append(r == null ? "not tried" : r.valid() ? "valid" : r.skip().reason());
        }
        return new IllegalStateException(b.toString());
    }
}
