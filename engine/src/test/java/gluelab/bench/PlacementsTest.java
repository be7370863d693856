package gluelab.bench;

import gluelab.calibrate.Calibration;
import gluelab.device.Buffer;
import gluelab.device.DelegatingDevice;
import gluelab.device.Launch;
import gluelab.device.OpInstance;
import gluelab.backend.cpu.CpuDevice;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.ops.Replay;
import gluelab.ops.Variant;
import gluelab.progress.Progress;
import gluelab.record.Row;
import gluelab.tensor.DType;
import gluelab.tensor.TensorSpec;
import gluelab.timing.Mode;
import gluelab.timing.StopRule;
import gluelab.timing.TimingConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Buffer placements on the CPU device: every placement runs in turn, everything is closed, memory and size bound the count. */
class PlacementsTest {
    static final GlueOp RMSNORM = Catalogue.parse("rmsnorm");
    static final OpShape SHAPE = RMSNORM.shape(Presets.LLAMA_3_8B, 16, DType.BF16);
    static final List<Variant> BOTH = List.of(Variant.EAGER, Variant.FUSED);

    CpuDevice cpu;
    Tracking device;

    /** The CPU device, keeping every buffer and launch it hands out (open or closed), failing the n-th allocation when told to. */
    static final class Tracking extends DelegatingDevice {
        final Map<Buffer, Boolean> buffers = new IdentityHashMap<>();
        final Map<Launch, Boolean> launches = new IdentityHashMap<>();
        final List<Map<String, Buffer>> prepared = new ArrayList<>();
        final Map<Launch, Integer> runs = new IdentityHashMap<>();
        int failAt = -1, allocations;
        long free = Long.MAX_VALUE;

        Tracking(CpuDevice cpu) { super(cpu); }

        @Override public Buffer allocate(TensorSpec spec) {
            if (++allocations == failAt) throw new IllegalArgumentException("cannot allocate " + spec + " (test)");
            Buffer inner = super.allocate(spec);
            Buffer b = new Buffer() {
                @Override public TensorSpec spec() { return inner.spec(); }

                @Override public void close() { buffers.put(this, false); inner.close(); }

                @Override public String toString() { return inner.toString(); }
            };
            buffers.put(b, true);
            return new Unwrapping(b, inner);
        }

        @Override public Launch prepare(OpInstance instance, Map<String, Buffer> args) {
            Map<String, Buffer> real = new java.util.HashMap<>();
            args.forEach((k, v) -> real.put(k, ((Unwrapping) v).inner));
            Launch inner = super.prepare(instance, real);
            prepared.add(args);
            Launch l = new Launch() {
                @Override public void run() { runs.merge(this, 1, Integer::sum); inner.run(); }

                @Override public int kernels() { return inner.kernels(); }

                @Override public long scratchBytes() { return inner.scratchBytes(); }

                @Override public void close() { launches.put(this, false); inner.close(); }
            };
            launches.put(l, true);
            return l;
        }

        @Override public void upload(gluelab.tensor.Tensor host, Buffer dst) { super.upload(host, ((Unwrapping) dst).inner); }

        @Override public long availableMemory() { return free; }

        long open(Map<?, Boolean> m) { return m.values().stream().filter(b -> b).count(); }
    }

    /** A tracked buffer that hands the CPU its own buffer underneath. */
    record Unwrapping(Buffer tracked, Buffer inner) implements Buffer {
        @Override public TensorSpec spec() { return tracked.spec(); }

        @Override public void close() { tracked.close(); }
    }

    @BeforeEach
    void setUp() {
        cpu = new CpuDevice(1);
        device = new Tracking(cpu);
    }

    @AfterEach
    void tearDown() { cpu.close(); }

    int tensors() { return RMSNORM.inputs(SHAPE, Pass.FORWARD).size() + RMSNORM.outputs(SHAPE, Pass.FORWARD).size(); }

    @Test
    void eachVariantRotatesThroughEveryPlacementInTurnAndEverythingIsClosed() {
        List<String> notes = new ArrayList<>();
        try (Placements p = Placements.allocate(device, RMSNORM, SHAPE, Pass.FORWARD, BOTH, 4, 42, notes::add)) {
            assertEquals(4, p.count());
            assertEquals(List.of(), notes);
            assertEquals(4 * tensors(), device.buffers.size());
            assertEquals(8, device.launches.size(), "each variant prepared on each placement");
            // Every placement has buffers of its own.
            for (int i = 0; i < device.prepared.size(); i += 2) {
                for (int j = i + 2; j < device.prepared.size(); j += 2) {
                    for (String name : device.prepared.get(i).keySet()) assertNotSame(device.prepared.get(i).get(name), device.prepared.get(j).get(name));
                }
            }
            Launch eager = p.rotating(0);
            assertEquals(4, eager.placements());
            for (int r = 0; r < 8; r++) eager.run();
            List<Launch> eagerLaunches = new ArrayList<>();
            for (Launch l : device.launches.keySet()) if (device.runs.containsKey(l)) eagerLaunches.add(l);
            assertEquals(4, eagerLaunches.size(), "8 runs went to the 4 eager launches");
            for (Launch l : eagerLaunches) assertEquals(2, device.runs.get(l));
            assertEquals(1, p.first(1).placements(), "graph replays are captured from one placement");
        }
        assertEquals(0, device.open(device.buffers));
        assertEquals(0, device.open(device.launches));
    }

    @Test
    void theHarnessSpreadsEverySampleOverThePlacementsAlike() {
        try (Placements p = Placements.allocate(device, RMSNORM, SHAPE, Pass.FORWARD, BOTH, 3, 42, n -> {})) {
            // 1 ns of device time a cold sample: one launch would do, rounded up to one per placement.
            TimingConfig fast = new TimingConfig(Mode.COLD, 0, new StopRule(5, 0, 0.5, 0.2, 20), 2, 1e-9);
            var m = new gluelab.timing.Harness(device).measure(new gluelab.timing.Harness.Subject("rmsnorm", p.rotating(1), 0,
                    fast.stop()), fast);
            assertEquals(3, m.placements());
            List<Integer> runs = new ArrayList<>();
            for (var e : device.runs.entrySet()) runs.add(e.getValue());
            assertEquals(3, runs.size(), "the fused launch of each placement ran");
            int min = runs.stream().mapToInt(i -> i).min().orElseThrow(), max = runs.stream().mapToInt(i -> i).max().orElseThrow();
            assertTrue(max - min <= 1, "placements ran alike (the one probe launch aside): " + runs);
            assertTrue(min >= 2 + m.summary().count(), "primed twice each, then once per sample: " + runs + ", " + m.summary().count() + " samples");
        }
    }

    @Test
    void anInterruptStopsAllocatingPlacementsAndClosesThem() {
        Thread.currentThread().interrupt();
        try {
            assertThrows(java.util.concurrent.CancellationException.class,
                    () -> Placements.allocate(device, RMSNORM, SHAPE, Pass.FORWARD, BOTH, 4, 42, n -> {}));
        } finally {
            Thread.interrupted();
        }
        // The input fills check the interrupt too, so it may stop inside the first placement, before its tensors exist.
        assertTrue(device.buffers.size() <= tensors(), "no placement after the first was allocated: " + device.buffers.size());
        assertEquals(0, device.open(device.buffers));
    }

    @Test
    void aFailureInTheFirstPlacementClosesWhatItAllocated() {
        device.failAt = tensors();  // the last output of the first placement
        var e = assertThrows(IllegalArgumentException.class,
                () -> Placements.allocate(device, RMSNORM, SHAPE, Pass.FORWARD, BOTH, 4, 42, n -> fail("no note expected: " + n)));
        assertTrue(e.getMessage().contains("(test)"), e.getMessage());
        assertEquals(tensors() - 1, device.buffers.size());
        assertEquals(0, device.open(device.buffers));
    }

    @Test
    void aFailureInALaterPlacementKeepsTheEarlierOnesWithANote() {
        device.failAt = 2 * tensors() + 2;  // inside the third placement
        List<String> notes = new ArrayList<>();
        try (Placements p = Placements.allocate(device, RMSNORM, SHAPE, Pass.FORWARD, BOTH, 4, 42, notes::add)) {
            assertEquals(2, p.count());
            assertEquals(1, notes.size());
            assertTrue(notes.getFirst().startsWith("rmsnorm fwd T=16: buffer placement 3 of 4 failed (cannot allocate"), notes.getFirst());
            assertTrue(notes.getFirst().endsWith("measuring on 2"), notes.getFirst());
            assertEquals(2 * tensors(), device.open(device.buffers), "the third placement's partial buffers are closed");
            assertEquals(2, p.rotating(0).placements());
        }
        assertEquals(0, device.open(device.buffers));
        assertEquals(0, device.open(device.launches));
    }

    @Test
    void placementsThatDoNotFitInHalfTheFreeMemoryAreLeftOutWithANote() {
        long each;
        try (Placements one = Placements.allocate(device, RMSNORM, SHAPE, Pass.FORWARD, BOTH, 1, 42, n -> {})) {
            each = device.buffers.keySet().stream().mapToLong(b -> b.spec().bytes()).sum()
                    + device.launches.keySet().stream().mapToLong(Launch::scratchBytes).sum();
        }
        device.free = 5 * each;  // half of it holds two more placements
        List<String> notes = new ArrayList<>();
        try (Placements p = Placements.allocate(device, RMSNORM, SHAPE, Pass.FORWARD, BOTH, 8, 42, notes::add)) {
            assertEquals(3, p.count());
            assertEquals(1, notes.size());
            assertTrue(notes.getFirst().startsWith("rmsnorm fwd T=16: 3 of 8 buffer placements fit in half of test-cpu's free memory"), notes.getFirst());
        }
        device.free = Long.MAX_VALUE;
        try (Placements p = Placements.allocate(device, RMSNORM, SHAPE, Pass.FORWARD, BOTH, 8, 42, n -> fail(n), 3 * each)) {
            assertEquals(3, p.count(), "placements of a group hold at most the byte bound together, without a note");
        }
        try (Placements p = Placements.allocate(device, RMSNORM, SHAPE, Pass.FORWARD, BOTH, 8, 42, n -> fail(n), each)) {
            assertEquals(1, p.count());
            assertSame(p.first(0), p.rotating(0), "one placement: the launch itself, no rotation");
        }
        assertEquals(0, device.open(device.buffers));
    }

    @Test
    void aMeasurementRecordedBeforePlacementsReadsAsOnePlacement() throws Exception {
        double[] samples = {1e-6, 2e-6, 3e-6};
        var m = new gluelab.timing.Measurement("x", Mode.COLD, samples, gluelab.timing.Summary.of(samples), StopRule.Reason.CONVERGED, 1, 0, 0.1, 0,
                0.001, null, 5);
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) gluelab.files.Json.MAPPER.readTree(gluelab.files.Json.write(m));
        assertEquals(5, tree.get("placements").asInt());
        assertEquals(5, gluelab.files.Json.MAPPER.treeToValue(tree, gluelab.timing.Measurement.class).placements());
        tree.remove("placements");
        assertEquals(1, gluelab.files.Json.MAPPER.treeToValue(tree, gluelab.timing.Measurement.class).placements());
    }

    @Test
    void aBenchRecordsThePlacementsOfEachRow() {
        TimingConfig fast = new TimingConfig(Mode.COLD, 0, new StopRule(3, 0, 0.5, 0.2, 20), 2);
        BenchPlan plan = new BenchPlan(Presets.LLAMA_3_8B, List.of(RMSNORM), List.of(16L), BOTH, List.of(Pass.FORWARD), DType.BF16, fast, 0)
                .withPlacements(3);
        List<String> notes = new ArrayList<>();
        BenchResult r = new BenchRunner(device, Calibration.given("test", 50e9, 1e11), notes::add).run(plan, Progress.NONE, row -> {});
        assertEquals(2, r.rows().size());
        for (Row row : r.rows()) {
            assertEquals(Replay.DIRECT, row.replay());
            assertEquals(3, row.measurement().placements());
        }
        assertEquals(List.of(), notes);
        assertEquals(0, device.open(device.buffers));
        assertEquals(0, device.open(device.launches));
        assertEquals("3", plan.parameters(device).get("placements"));
        BenchPlan regionOnly = new BenchPlan(Presets.LLAMA_3_8B, List.of(Catalogue.parse("moe_routing")), List.of(16L), List.of(Variant.REGION),
                List.of(Pass.FORWARD), DType.BF16, fast, 0);
        assertEquals(List.of(), new BenchRunner(device, Calibration.given("test", 50e9, 1e11), notes::add).run(regionOnly, Progress.NONE, row -> {}).rows(),
                "an op without an expression gives no region row, and nothing is placed for it");
        assertEquals("1", new BenchPlan(Presets.LLAMA_3_8B, List.of(RMSNORM), List.of(16L), BOTH, List.of(Pass.FORWARD), DType.BF16, fast, 0)
                .parameters(device).get("placements"), "the CPU's own count");
    }
}
