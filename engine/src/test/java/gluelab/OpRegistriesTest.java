package gluelab;

import gluelab.backend.cpu.CpuKernels;
import gluelab.backend.eager.EagerChains;
import gluelab.expr.catalogue.CatalogueRegions;
import gluelab.ops.Catalogue;
import gluelab.ops.OpId;
import gluelab.ops.OpRegistry;
import gluelab.ops.Pass;
import gluelab.ops.ScaleFixture;
import gluelab.model.ModelSpec;
import gluelab.rank.LayerRecipe;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every catalogue op has an entry, or a declared and reasoned skip, in every registry keyed by
 * {@link OpId}. The fixture op {@code scale} (one test-source file per layer, listed in
 * {@code src/test/op-fixture/META-INF/services}) shows that those files alone put an op in every
 * registry, through a class loader of its own so that no other test sees it.
 */
class OpRegistriesTest {
    static final Path FIXTURE = Path.of("src/test/op-fixture");

    /** Why the fixture has no torch form: the harness's table is Python inside the jar, not a service file. */
    static final String NO_TORCH_FIXTURE = "the torch harness's op table is harness.py's OPS; a catalogue op adds its torch function there, a test fixture has none";

    static List<OpRegistry<?>> registries() throws IOException {
        return List.of(CpuKernels.registry(), EagerChains.registry(), CatalogueRegions.registry(), LayerRecipe.registry(), harnessOps(Map.of()));
    }

    /** Every registry as {@code loader}'s service files build it, the torch table with the fixture's declared skip. */
    static List<OpRegistry<?>> registries(ClassLoader loader) throws IOException {
        return List.of(CpuKernels.registry(loader), EagerChains.registry(loader), CatalogueRegions.registry(loader), LayerRecipe.registry(loader),
                harnessOps(Map.of(ScaleFixture.ID, NO_TORCH_FIXTURE)));
    }

    /** The torch harness's {@code OPS} table (Python), read as a registry of its keys, plus declared skips. */
    static OpRegistry<String> harnessOps(Map<OpId, String> skips) throws IOException {
        String py = Files.readString(Path.of("src/main/resources/gluelab/torch/harness.py"));
        Matcher table = Pattern.compile("(?s)\\nOPS = \\{(.*?)\\}").matcher(py);
        assertTrue(table.find(), "harness.py has no OPS = {...} table");
        OpRegistry.Builder<String> b = OpRegistry.builder("torch harness's OPS table");
        Matcher key = Pattern.compile("\"([a-z][a-z0-9_]*)\"\\s*:\\s*([A-Za-z_0-9]+)").matcher(table.group(1));
        while (key.find()) b.add(OpId.of(key.group(1)), key.group(2));
        skips.forEach(b::skip);
        return b.build();
    }

    /** The test class path plus the fixture's service files, less those named in {@code hidden}. */
    static ClassLoader withFixture(String... hidden) {
        try {
            return new URLClassLoader(new URL[]{FIXTURE.toUri().toURL()}, OpRegistriesTest.class.getClassLoader()) {
                @Override public Enumeration<URL> findResources(String name) throws IOException {
                    return Set.of(hidden).contains(name) ? Collections.emptyEnumeration() : super.findResources(name);
                }
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test void theFixtureOpsFilesPutItInEveryRegistry() throws IOException {
        ClassLoader loader = withFixture();
        List<OpId> ops = Catalogue.discover(loader).stream().map(gluelab.ops.GlueOp::id).toList();
        assertEquals(Catalogue.ids().size() + 1, ops.size(), "the fixture loader's catalogue: " + ops);
        assertTrue(ops.contains(ScaleFixture.ID));
        assertTrue(!Catalogue.contains(ScaleFixture.ID), "the fixture is not in the catalogue other tests see");
        List<String> uncovered = new ArrayList<>();
        for (OpRegistry<?> r : registries(loader)) uncovered.addAll(r.uncovered(ops));
        assertEquals(List.of(), uncovered);
        assertTrue(CpuKernels.registry(loader).find(ScaleFixture.ID).isPresent());
        assertTrue(EagerChains.registry(loader).find(ScaleFixture.ID).isPresent());
        assertEquals("a test fixture runs in no model's layer", LayerRecipe.registry(loader).skip(ScaleFixture.ID).orElseThrow().reason());
        // The fixture's expression is a real region: it builds at a shape, with the op's output.
        ModelSpec spec = new ModelSpec("small", null, "test", 96, 3, 3, 48, 32, 160, 96, 20, 4, "sigmoid", 1e-6, 10000, 2, List.of());
        ScaleFixture scale = new ScaleFixture();
        var region = CatalogueRegions.registry(loader).get(ScaleFixture.ID).at(scale, scale.shape(spec, 64, DType.BF16), Pass.FORWARD).region();
        assertEquals(Set.of("y"), region.outputs().keySet());
    }

    @Test void aFixtureWithoutOneLayersFileFailsNamingThatLayer() throws IOException {
        ClassLoader loader = withFixture("META-INF/services/gluelab.backend.eager.EagerChains$Entries");
        List<OpId> ops = Catalogue.discover(loader).stream().map(gluelab.ops.GlueOp::id).toList();
        List<String> uncovered = new ArrayList<>();
        for (OpRegistry<?> r : registries(loader)) uncovered.addAll(r.uncovered(ops));
        assertEquals(List.of("op 'scale' has no entry in the eager chains and no declared skip"), uncovered);
    }

    @Test void everyCatalogueOpIsInEveryRegistry() throws IOException {
        List<String> uncovered = new ArrayList<>();
        for (OpRegistry<?> r : registries()) uncovered.addAll(r.uncovered(Catalogue.ids()));
        assertEquals(List.of(), uncovered);
    }

    @Test void aMissingEntryFailsNamingTheOpAndTheRegistry() {
        List<CpuKernels.OpKernels> withoutCast = ServiceLoader.load(CpuKernels.OpKernels.class).stream().map(ServiceLoader.Provider::get)
                .filter(k -> !k.ops().contains(OpId.of("cast"))).toList();
        OpRegistry<CpuKernels.OpKernels> r = CpuKernels.registry(withoutCast);
        assertEquals(List.of("op 'cast' has no entry in the CPU kernels and no declared skip"), r.uncovered(Catalogue.ids()));
    }

    @Test void aSkipCarriesItsReason() {
        var skip = CatalogueRegions.registry().skip(OpId.of("moe_routing")).orElseThrow();
        assertEquals("top-k is not an expression", skip.reason());
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> CatalogueRegions.registry().get(OpId.of("moe_routing")));
        assertEquals("the expression regions have no entry for op 'moe_routing': top-k is not an expression", e.getMessage());
    }
}
