package gluelab.device;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A device whose fused kernels come in several launch configurations. The autotuner asks for the
 * valid configurations of an op instance, compiles them (in parallel), times each through
 * {@link #prepare(OpInstance, Map, KernelConfig)} and stores its pick in {@link #picks()}; the
 * device's plain {@link Device#prepare} then uses the stored pick, or the first (default) config.
 */
public interface Tunable {
    /** Why a configuration cannot run: it failed to compile or exceeds the device's limits. */
    final class ConfigRejected extends RuntimeException {
        public ConfigRejected(String message) { super(message); }
    }

    /** One configuration's compilation: wall seconds and, when it failed, why. */
    record CompileOutcome(KernelConfig config, double seconds, boolean compiled, Optional<String> error) {}

    /** One configuration of one instance, in a batch compiled together. */
    record CompileJob(OpInstance instance, KernelConfig config) {}

    /**
     * A batch's outcomes, in the order of its jobs, and how it was compiled: {@code processes}
     * compile processes besides this one (0: in this process), {@code how} in words, with the reason
     * where worker processes were wanted but could not be used.
     */
    record CompileBatch(List<CompileOutcome> outcomes, int processes, String how) {}

    /**
     * Whether a bench tunes this space before it measures when no one asked (no --tune): false
     * where a tune costs minutes and the defaults are close (the CPU's JIT-compiled kernels).
     */
    default boolean tunesUnasked() { return true; }

    /** The most seconds a tune may spend timing one kernel's configs (infinite: no cap). */
    default double timingSecondsPerKernel() { return Double.POSITIVE_INFINITY; }

    /** Valid configurations for this instance, pruned by its shape; the first is the default. Empty: not tunable. */
    List<KernelConfig> configs(OpInstance instance);

    /**
     * Compiles the configurations, {@code threads} at a time (1: one after another), before any is
     * run; outcomes come back in the order given. Nothing is compiled that is already cached.
     */
    List<CompileOutcome> compile(OpInstance instance, List<KernelConfig> configs, int threads);

    /**
     * Starts whatever compiles in parallel (compile worker processes) so it is ready by the time
     * {@link #compileBatch} is called; returns at once. Nothing to start by default.
     */
    default void startCompilers(int threads) {}

    /** Ends what {@link #startCompilers} started (the next batch starts it again). */
    default void stopCompilers() {}

    /**
     * Compiles the jobs of several instances together, {@code threads} at a time, before any is run;
     * outcomes in the order given. By default one instance after another through {@link #compile}.
     */
    default CompileBatch compileBatch(List<CompileJob> jobs, int threads) {
        Map<OpInstance, List<KernelConfig>> byInstance = new java.util.LinkedHashMap<>();
        for (CompileJob j : jobs) byInstance.computeIfAbsent(j.instance(), k -> new java.util.ArrayList<>()).add(j.config());
        Map<CompileJob, CompileOutcome> done = new java.util.HashMap<>();
        byInstance.forEach((in, cs) -> {
            List<CompileOutcome> os = compile(in, cs, threads);
            for (int i = 0; i < cs.size(); i++) done.put(new CompileJob(in, cs.get(i)), os.get(i));
        });
        return new CompileBatch(jobs.stream().map(done::get).toList(), 0, threads + " threads in this process");
    }

    /** The fused launch of the instance in the given configuration; ConfigRejected when it cannot run here. */
    Launch prepare(OpInstance instance, Map<String, Buffer> args, KernelConfig config);

    /** What the kernels are (device arch, kernel source hash, compiler). */
    String codeId();

    /** What the instance's kernel is: part of its tuning key. By default {@link #codeId()}; narrower where one source change need not void every pick. */
    default String codeId(OpInstance instance) { return codeId(); }

    /** Where picks are kept (beside the compile cache). */
    ConfigPicks picks();

    /** Picks tuned on a reference GPU of this kind and shipped with the kernels; none by default. */
    default ShippedPicks shipped() { return ShippedPicks.none(); }

    /**
     * The config the instance runs in: this machine's pick when one is stored and still valid, else
     * the shipped pick (at this shape or the nearest tuned one), else the default config.
     */
    default Optional<KernelConfig> chosen(OpInstance instance) {
        List<KernelConfig> all = configs(instance);
        if (all.isEmpty()) return Optional.empty();
        java.util.function.Function<String, Optional<KernelConfig>> byId = id -> all.stream().filter(c -> c.id().equals(id)).findFirst();
        return picks().pick(ConfigPicks.Key.of(instance, codeId(instance))).flatMap(byId)
                .or(() -> shipped().pick(instance, all).flatMap(m -> byId.apply(m.pick().config())))
                .or(() -> Optional.of(all.getFirst()));
    }
}
