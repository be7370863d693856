package gluelab.expr.run;

import gluelab.device.Device;
import gluelab.device.cpu.CpuDevice;
import gluelab.expr.Region;
import gluelab.expr.Signature;
import gluelab.expr.cuda.LaunchConfig;
import gluelab.expr.lower.RowPlan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compiled regions of one device, keyed by signature (structure, shapes, dtypes) plus launch
 * configuration, never by the region's or its inputs' names: the same norm at every layer of a
 * model compiles once. {@link #compiles()} counts what was actually compiled.
 */
public final class RegionCompiler {
    private static final Map<Device, RegionCompiler> BY_DEVICE = Collections.synchronizedMap(new WeakHashMap<>());

    private final Device device;
    private final Map<String, CompiledRegion> cache = new ConcurrentHashMap<>();
    private final List<String> compiled = Collections.synchronizedList(new ArrayList<>());

    private RegionCompiler(Device device) { this.device = device; }

    /** The device's compiler (one per device, so its count covers every caller). */
    public static RegionCompiler of(Device device) { return BY_DEVICE.computeIfAbsent(device, RegionCompiler::new); }

    public Device device() { return device; }

    public CompiledRegion compile(Region r) { return compile(r, null); }

    /** Compiles on first sight of the signature with this configuration (null: the default one). */
    public CompiledRegion compile(Region r, LaunchConfig config) {
        RowPlan plan = RowPlan.of(r);
        LaunchConfig c = config != null ? config : isCpu() ? LaunchConfig.CPU : LaunchConfig.defaultFor(plan);
        Signature sig = r.signature().with(c.id());
        return cache.computeIfAbsent(sig.key(), k -> {
            compiled.add(k);
            return isCpu() ? new CpuRegion(sig, plan, ((CpuDevice) device).parallel()) : CudaRegion.compile(device, sig, plan, c);
        });
    }

    /** The configurations worth trying for a region on this device (what an autotuner sweeps). */
    public List<LaunchConfig> configs(Region r) { return isCpu() ? List.of(LaunchConfig.CPU) : LaunchConfig.candidates(RowPlan.of(r)); }

    /** How many regions were compiled (cache misses). */
    public int compiles() { return compiled.size(); }

    /** Signature keys in the order they were compiled. */
    public List<String> compiledKeys() { return List.copyOf(compiled); }

    private boolean isCpu() { return device instanceof CpuDevice; }
}
