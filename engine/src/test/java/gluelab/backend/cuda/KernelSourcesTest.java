package gluelab.backend.cuda;

import gluelab.ops.Catalogue;
import gluelab.ops.GlueOp;
import gluelab.ops.OpId;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/** The CUDA files as the engine sees them: small files, every header handed to the compiler, each kernel family's entry points declared. */
class KernelSourcesTest {
    /** kernels/src/main/cuda, from the engine module's folder (where surefire runs). */
    private static final Path FOLDER = Path.of("..", "kernels", "src", "main", "cuda");

    private static List<Path> files(String ext) throws Exception {
        try (Stream<Path> s = Files.list(FOLDER)) {
            return s.filter(p -> p.getFileName().toString().endsWith(ext)).sorted().toList();
        }
    }

    @Test
    void everyHeaderInTheFolderIsHandedToTheCompilerAndNoFileIsLarge() throws Exception {
        assertEquals(Set.copyOf(files(".cuh").stream().map(p -> p.getFileName().toString()).toList()), Set.copyOf(KernelSources.HEADERS));
        for (Path p : Stream.concat(files(".cu").stream(), files(".cuh").stream()).toList()) {
            long lines = Files.readAllLines(p).size();
            assertTrue(lines <= 400, p + ": " + lines + " lines (a family over 400 lines splits)");
        }
        var unit = new KernelSources().unit("rmsnorm.cu");
        assertEquals(Set.copyOf(KernelSources.HEADERS), unit.headers().keySet());
    }

    @Test
    void everyCatalogueOpHasOneFamilyWhoseFileDeclaresItsKernelsAndEveryFusedKernelHasAFamily() throws Exception {
        for (GlueOp op : Catalogue.all()) assertTrue(FusedKernels.family(OpId.of(op.name())).isPresent(), op.name() + " has no fused family");
        KernelSources sources = new KernelSources();
        Set<String> claimed = new HashSet<>(), files = new HashSet<>();
        for (FusedFamily f : FusedKernels.FAMILIES) {
            Map<String, KernelSignature> declared = KernelSignature.parse(sources.unit(f.source()).text());
            assertEquals(Set.copyOf(f.kernels()), declared.keySet(), f.source() + ": the family launches exactly the kernels its file declares");
            claimed.addAll(f.kernels());
            files.add(f.source());
        }
        for (Path p : files(".cu")) {
            String name = p.getFileName().toString();
            if (name.equals(KernelSources.BASE)) continue;
            assertTrue(files.contains(name), name + " belongs to no family");
        }
        var base = KernelSignature.parse(sources.unit(KernelSources.BASE).text());
        assertFalse(base.isEmpty());
        // The calibration copies are stamped out by a macro: each use declares a kernel the launches find.
        for (String k : List.of("calib_copy", "calib_copy_1024x2", "calib_copy_256x8_cs", "calib_triad")) assertTrue(base.containsKey(k), k + " in " + base.keySet());
        assertEquals("[ptr src, ptr dst, i64 n4]", base.get("calib_copy").params().toString());
        assertFalse(base.containsKey("name"), "a macro's parameter is not a kernel");
        assertEquals(claimed.size(), FusedKernels.FAMILIES.stream().mapToInt(f -> f.kernels().size()).sum(), "no kernel in two families");
    }

    @Test
    void signaturesAreReadFromTheDeclarationsAndALaunchThatDiffersIsRefused() {
        String src = """
                extern "C" __global__ void ROW_BOUNDS k1(const void* x, float* partial, i64 rows, int n,
                                                         float eps, unsigned* bar) { }
                #if CFG_FLAT
                extern "C" __global__ void __launch_bounds__(CFG_THREADS) k2(const u16* x, i64 n) { }
                #else
                extern "C" __global__ void __launch_bounds__(CFG_THREADS) k2(const u16* x, i64 n) { }
                #endif
                """;
        var sigs = KernelSignature.parse(src);
        KernelSignature k1 = sigs.get("k1");
        assertEquals(List.of("ptr x", "ptr partial", "i64 rows", "i32 n", "f32 eps", "ptr bar"), k1.params().stream().map(Object::toString).toList());
        var ok = new KernelLaunch.Args().nullPtr("x").nullPtr("partial").i64("rows", 1).i32("n", 2).f32("eps", 1e-6f).nullPtr();
        k1.check(ok.bound());
        var swapped = new KernelLaunch.Args().nullPtr("x").nullPtr("partial").i32("n", 2).i64("rows", 1).f32("eps", 1e-6f).nullPtr("bar");
        var e = assertThrows(IllegalStateException.class, () -> k1.check(swapped.bound()));
        assertTrue(e.getMessage().contains("launch of k1 binds") && e.getMessage().contains("i32 n"), e.getMessage());
        var misnamed = new KernelLaunch.Args().nullPtr("x").nullPtr("partial").i64("rows", 1).i32("n", 2).f32("epsilon", 1e-6f).nullPtr("bar");
        assertThrows(IllegalStateException.class, () -> k1.check(misnamed.bound()));
        assertThrows(IllegalStateException.class, () -> k1.check(new KernelLaunch.Args().nullPtr("x").bound()), "too few");
        assertEquals(1, sigs.get("k2").params().size() - 1);
        var twoForms = assertThrows(IllegalStateException.class,
                () -> KernelSignature.parse("extern \"C\" __global__ void k(int a) {}\nextern \"C\" __global__ void k(float a) {}\n"));
        assertTrue(twoForms.getMessage().contains("two parameter lists"), twoForms.getMessage());
    }
}
