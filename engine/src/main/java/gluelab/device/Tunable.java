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

    /** Valid configurations for this instance, pruned by its shape; the first is the default. Empty: not tunable. */
    List<KernelConfig> configs(OpInstance instance);

    /**
     * Compiles the configurations, {@code threads} at a time (1: one after another), before any is
     * run; outcomes come back in the order given. Nothing is compiled that is already cached.
     */
    List<CompileOutcome> compile(OpInstance instance, List<KernelConfig> configs, int threads);

    /** The fused launch of the instance in the given configuration; ConfigRejected when it cannot run here. */
    Launch prepare(OpInstance instance, Map<String, Buffer> args, KernelConfig config);

    /** What the kernels are (device arch, kernel source hash, compiler): part of every tuning key. */
    String codeId();

    /** Where picks are kept (beside the compile cache). */
    ConfigPicks picks();

    /** The pick for the instance when one is stored and still valid, else the default config. */
    default Optional<KernelConfig> chosen(OpInstance instance) {
        List<KernelConfig> all = configs(instance);
        if (all.isEmpty()) return Optional.empty();
        return picks().pick(ConfigPicks.Key.of(instance, codeId()))
                .flatMap(id -> all.stream().filter(c -> c.id().equals(id)).findFirst())
                .or(() -> Optional.of(all.getFirst()));
    }
}
