package gluelab;

import gluelab.backend.cpu.CpuKernels;
import gluelab.backend.eager.EagerChains;
import gluelab.expr.catalogue.CatalogueRegions;
import gluelab.ops.Catalogue;
import gluelab.ops.OpId;
import gluelab.ops.OpRegistry;
import gluelab.rank.LayerRecipe;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every catalogue op has an entry, or a declared and reasoned skip, in every registry keyed by {@link OpId}. */
class OpRegistriesTest {
    static List<OpRegistry<?>> registries() throws IOException {
        return List.of(CpuKernels.registry(), EagerChains.registry(), CatalogueRegions.registry(), LayerRecipe.registry(), harnessOps());
    }

    /** The torch harness's {@code OPS} table (Python), read as a registry of its keys. */
    static OpRegistry<String> harnessOps() throws IOException {
        String py = Files.readString(Path.of("src/main/resources/gluelab/torch/harness.py"));
        Matcher table = Pattern.compile("(?s)\\nOPS = \\{(.*?)\\}").matcher(py);
        assertTrue(table.find(), "harness.py has no OPS = {...} table");
        OpRegistry.Builder<String> b = OpRegistry.builder("torch harness's OPS table");
        Matcher key = Pattern.compile("\"([a-z][a-z0-9_]*)\"\\s*:\\s*([A-Za-z_0-9]+)").matcher(table.group(1));
        while (key.find()) b.add(OpId.of(key.group(1)), key.group(2));
        return b.build();
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
