package gluelab.backend.cuda;

import gluelab.device.KernelConfig;
import gluelab.device.OpInstance;
import gluelab.device.Tunable;
import gluelab.backend.cuda.compile.CompileCache;
import gluelab.backend.cuda.compile.CompileException;
import gluelab.backend.cuda.compile.CompileWorkers;
import gluelab.backend.cuda.compile.NvccCompiler;
import gluelab.backend.cuda.compile.NvccCompilerTest;
import gluelab.backend.cuda.compile.SourceUnit;
import gluelab.model.Presets;
import gluelab.ops.Catalogue;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.DType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The compile worker processes, with nvcc (no GPU needed; NVRTC, their compiler on the GPU host,
 * is not installed on CI): the protocol round trip into the cache, a worker killed mid-job, a job
 * whose workers die twice, and the in-process fallback where no worker can start.
 */
@Tag("slow")
class CompileWorkersTest {
    private static final String SMALL = "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }\n";

    @TempDir Path cacheDir;
    @TempDir Path pipes;
    private CompileWorkers pool;

    @AfterEach
    void close() {
        if (pool != null) pool.close();
        CompileCache.clearMemory();
    }

    @Test
    void workersCompileIntoTheCacheAndReportCompileErrorsWithTheLine() throws Exception {
        NvccCompiler nvcc = NvccCompilerTest.nvcc();
        pool = CompileWorkers.start(CudaTuning.workerJvm(), 2, "sm_90", nvcc);
        assertTrue(pool.awaitStarted(120, TimeUnit.SECONDS), "no worker started: " + pool.unavailable());
        assertEquals(2, pool.alive());
        assertEquals(nvcc.id(), pool.id(), "the workers run this process's compiler, which the cache key names");
        CompileCache cache = new CompileCache(cacheDir, nvcc);
        CompileCache.Fetched f = cache.fetch(SourceUnit.of("small.cu", SMALL), "sm_90", List.of(), pool);
        assertEquals("compiled", f.origin());
        assertElf(f.bytes());
        assertArrayEquals(f.bytes(), Files.readAllBytes(cacheDir.resolve(CompileCache.key(SourceUnit.of("small.cu", SMALL), "sm_90", List.of(), nvcc.id()) + ".cubin")));
        assertEquals("memory", cache.fetch(SourceUnit.of("small.cu", SMALL), "sm_90", List.of(), pool).origin(), "a second lookup compiles nothing");
        var e = assertThrows(CompileException.class,
                () -> cache.fetch(SourceUnit.of("mine.cu", "extern \"C\" __global__ void k(float* p) {\n  p[0] = nope;\n}\n"), "sm_90", List.of(), pool));
        assertTrue(e.getMessage().contains("mine.cu(2)"), e.getMessage());
        assertEquals(2, pool.alive(), "a compile error leaves the worker alive");
    }

    @Test
    void aWorkerKilledMidJobIsReplacedAndTheJobRetried() throws Exception {
        NvccCompiler nvcc = NvccCompilerTest.nvcc();
        pool = CompileWorkers.start(CudaTuning.workerJvm(), 1, "sm_90", nvcc);
        assertTrue(pool.awaitStarted(120, TimeUnit.SECONDS), "no worker started: " + pool.unavailable());
        long first = pool.pids().getFirst();
        CompileCache cache = new CompileCache(cacheDir, nvcc);
        // The compile blocks on the pipe: the worker is surely mid-job when killed.
        Path header = fifo("held.h");
        String source = "#include \"" + header + "\"\n" + SMALL;
        var job = CompletableFuture.supplyAsync(() -> cache.fetch(SourceUnit.of("held.cu", source), "sm_90", List.of(), pool));
        killWhileCompiling(first);
        // The replacement finds a plain file there.
        Files.delete(header);
        Files.writeString(header, "// released\n");
        CompileCache.Fetched f = job.get(300, TimeUnit.SECONDS);
        assertEquals("compiled", f.origin());
        assertElf(f.bytes());
        assertEquals(1, pool.alive(), "the dead worker was replaced");
        assertNotEquals(first, pool.pids().getFirst());
        assertOnlyWholeCubins();
    }

    @Test
    void aJobWhoseWorkersDieTwiceIsReportedNamingTheConfigAndNothingIsCached() throws Exception {
        NvccCompiler nvcc = NvccCompilerTest.nvcc();
        pool = CompileWorkers.start(CudaTuning.workerJvm(), 1, "sm_90", nvcc);
        assertTrue(pool.awaitStarted(120, TimeUnit.SECONDS), "no worker started: " + pool.unavailable());
        CompileCache cache = new CompileCache(cacheDir, nvcc);
        var op = Catalogue.parse("moe_routing");
        OpInstance in = new OpInstance(op, op.shape(Presets.ANCHOR_H200, 64, DType.BF16), Pass.FORWARD, Variant.FUSED);
        KernelConfig config = FusedKernels.configs(in).getFirst();
        SourceUnit source = SourceUnit.of("never.cu", "#include \"" + fifo("never.h") + "\"\n" + SMALL);
        var batch = CompletableFuture.supplyAsync(() -> CudaTuning.compileBatch(List.of(new Tunable.CompileJob(in, config)), 1, pool,
                (j, via) -> cache.fetch(source, "sm_90", CudaKernels.options(j.instance(), j.config()), via)));
        long first = pool.pids().getFirst();
        killWhileCompiling(first);
        killWhileCompiling(workerOtherThan(first));
        Tunable.CompileBatch b = batch.get(300, TimeUnit.SECONDS);
        Tunable.CompileOutcome o = b.outcomes().getFirst();
        assertEquals(config, o.config());
        String why = o.error().orElseThrow(() -> new AssertionError("the job compiled"));
        assertTrue(why.contains("died") && why.contains(String.join(" ", FusedKernels.defines(in, config))), why);
        assertFalse(o.compiled());
        assertOnlyWholeCubins();
        assertFalse(Files.exists(cacheDir.resolve(CompileCache.key(source, "sm_90", CudaKernels.options(in, config), nvcc.id()) + ".cubin")));
    }

    @Test
    void whereNoWorkerCanStartTheBatchCompilesInThisProcessAndSaysWhy() throws Exception {
        NvccCompiler nvcc = NvccCompilerTest.nvcc();
        pool = CompileWorkers.start(List.of(cacheDir.resolve("no-such-java").toString()), 2, "sm_90", nvcc);
        assertFalse(pool.awaitStarted(60, TimeUnit.SECONDS));
        assertTrue(pool.unavailable().orElseThrow().contains("cannot start a compile worker process"), pool.unavailable().toString());
        CompileCache cache = new CompileCache(cacheDir, nvcc);
        var op = Catalogue.parse("cat");
        OpInstance in = new OpInstance(op, op.shape(Presets.ANCHOR_H200, 64, DType.BF16), Pass.FORWARD, Variant.FUSED);
        KernelConfig config = new KernelConfig("k", Map.of("threads", 32));
        SourceUnit fallback = SourceUnit.of("small.cu", SMALL + "// compiled in this process\n");
        Tunable.CompileBatch b = CudaTuning.compileBatch(List.of(new Tunable.CompileJob(in, config)), 2, pool,
                (j, via) -> via == null ? cache.fetch(fallback, "sm_90", List.of()) : cache.fetch(fallback, "sm_90", List.of(), via));
        assertEquals(0, b.processes());
        assertTrue(b.how().startsWith("2 threads in this process (compile worker processes unavailable: cannot start a compile worker process"), b.how());
        assertTrue(b.outcomes().getFirst().error().isEmpty(), b.outcomes().toString());
        assertTrue(b.outcomes().getFirst().compiled());
    }

    /** The pid of a live worker other than {@code pid} (its replacement), once there is one. */
    private long workerOtherThan(long pid) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            var other = pool.pids().stream().filter(p -> p != pid).findFirst();
            if (other.isPresent()) return other.get();
            assertTrue(System.nanoTime() < end, "no replacement for worker " + pid + ": " + pool.unavailable());
            Thread.sleep(5);
        }
    }

    /** A named pipe nobody writes: a compile that includes it waits until killed. */
    private Path fifo(String name) throws Exception {
        Path p = pipes.resolve(name);
        assertEquals(0, new ProcessBuilder("mkfifo", p.toString()).inheritIO().start().waitFor(), "mkfifo " + p);
        return p;
    }

    /** Waits until the worker runs nvcc (it is mid-job), then kills it and what it started. */
    private static void killWhileCompiling(long pid) throws InterruptedException {
        ProcessHandle worker = ProcessHandle.of(pid).orElseThrow();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (worker.children().findAny().isEmpty()) {
            assertTrue(System.nanoTime() < end, "worker " + pid + " never started a compile");
            Thread.sleep(2);
        }
        List<String> command = new ArrayList<>(List.of("kill", "-9", Long.toString(pid)));
        worker.descendants().forEach(h -> command.add(Long.toString(h.pid())));
        try {
            new ProcessBuilder(command).inheritIO().start().waitFor();
        } catch (java.io.IOException e) {
            throw new AssertionError("cannot run kill: " + e.getMessage(), e);
        }
        while (worker.isAlive()) {
            assertTrue(System.nanoTime() < end, "worker " + pid + " outlived SIGKILL");
            Thread.sleep(5);
        }
    }

    private void assertOnlyWholeCubins() throws Exception {
        try (Stream<Path> files = Files.list(cacheDir)) {
            for (Path p : files.toList()) {
                assertTrue(p.getFileName().toString().endsWith(".cubin"), "left in the cache: " + p);
                assertElf(Files.readAllBytes(p));
            }
        }
    }

    private static void assertElf(byte[] cubin) {
        assertTrue(cubin.length > 4 && cubin[0] == 0x7f && cubin[1] == 'E' && cubin[2] == 'L' && cubin[3] == 'F', "a cubin is an ELF file");
    }
}
