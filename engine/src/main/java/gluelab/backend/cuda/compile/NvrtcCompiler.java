package gluelab.backend.cuda.compile;

import java.lang.foreign.*;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.*;

/**
 * NVRTC bound through the JDK's foreign-function API, so any installed version works (JCuda's own
 * binding needs libnvrtc.so.12). Takes the newest libnvrtc.so.N it finds.
 */
public final class NvrtcCompiler implements CudaCompiler {
    private static final Pattern SONAME = Pattern.compile("libnvrtc\\.so\\.(\\d+)(?:\\.(\\d+))?(?:\\.(\\d+))?$");

    private final Path library;
    private final String version;
    private final MethodHandle create, compile, logSize, log, cubinSize, cubin, destroy, errorString;

    private NvrtcCompiler(Path library) {
        this.library = library;
        Linker linker = Linker.nativeLinker();
        SymbolLookup lib = SymbolLookup.libraryLookup(library, Arena.global());
        MethodHandle versionFn = fn(linker, lib, "nvrtcVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        create = fn(linker, lib, "nvrtcCreateProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
        compile = fn(linker, lib, "nvrtcCompileProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
        logSize = fn(linker, lib, "nvrtcGetProgramLogSize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        log = fn(linker, lib, "nvrtcGetProgramLog", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        cubinSize = fn(linker, lib, "nvrtcGetCUBINSize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        cubin = fn(linker, lib, "nvrtcGetCUBIN", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        destroy = fn(linker, lib, "nvrtcDestroyProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        errorString = fn(linker, lib, "nvrtcGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment major = a.allocate(JAVA_INT), minor = a.allocate(JAVA_INT);
            check((int) versionFn.invokeExact(major, minor), "nvrtcVersion");
            version = major.get(JAVA_INT, 0) + "." + minor.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static MethodHandle fn(Linker linker, SymbolLookup lib, String name, FunctionDescriptor d) {
        return linker.downcallHandle(lib.find(name).orElseThrow(() -> new IllegalStateException("symbol " + name + " missing")), d);
    }

    /** Loads the newest NVRTC found in the CUDA toolkit folders and on LD_LIBRARY_PATH. */
    public static NvrtcCompiler load() {
        Path lib = newest().orElseThrow(() -> new IllegalStateException("no libnvrtc.so.N found in " + searchDirs()));
        return new NvrtcCompiler(lib);
    }

    static List<Path> searchDirs() {
        List<Path> dirs = new ArrayList<>();
        for (String env : new String[]{"CUDA_HOME", "CUDA_PATH"}) {
            String v = System.getenv(env);
            if (v != null) {
                dirs.add(Path.of(v, "lib64"));
                dirs.add(Path.of(v, "targets", "x86_64-linux", "lib"));
            }
        }
        String ld = System.getenv("LD_LIBRARY_PATH");
        if (ld != null) for (String p : ld.split(":")) if (!p.isBlank()) dirs.add(Path.of(p));
        dirs.add(Path.of("/usr/local/cuda/lib64"));
        try (Stream<Path> s = Files.list(Path.of("/usr/local"))) {
            s.filter(p -> p.getFileName().toString().startsWith("cuda-")).sorted(Comparator.reverseOrder())
                    .forEach(p -> { dirs.add(p.resolve("lib64")); dirs.add(p.resolve("targets/x86_64-linux/lib")); });
        } catch (Exception ignored) {
            // No /usr/local: nothing to add.
        }
        dirs.add(Path.of("/usr/lib/x86_64-linux-gnu"));
        return dirs;
    }

    static java.util.Optional<Path> newest() {
        Path best = null;
        int[] bestVersion = null;
        for (Path dir : searchDirs()) {
            if (!Files.isDirectory(dir)) continue;
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : s.toList()) {
                    Matcher m = SONAME.matcher(p.getFileName().toString());
                    if (!m.find() || p.getFileName().toString().contains("builtins")) continue;
                    int[] v = {Integer.parseInt(m.group(1)), m.group(2) == null ? 0 : Integer.parseInt(m.group(2)),
                            m.group(3) == null ? 0 : Integer.parseInt(m.group(3))};
                    if (bestVersion == null || java.util.Arrays.compare(v, bestVersion) > 0) {
                        best = p;
                        bestVersion = v;
                    }
                }
            } catch (Exception ignored) {
                // Unreadable folder: skip it.
            }
        }
        return java.util.Optional.ofNullable(best);
    }

    @Override public String id() { return "nvrtc " + version + " (" + library.getFileName() + ")"; }

    @Override public byte[] compileCubin(SourceUnit source, String arch, List<String> options) {
        String sourceName = source.name();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment progPtr = a.allocate(ADDRESS);
            // The headers by name: NVRTC resolves #include "name" against these before any folder.
            int n = source.headers().size();
            MemorySegment texts = n == 0 ? MemorySegment.NULL : a.allocate(ADDRESS, n), names = n == 0 ? MemorySegment.NULL : a.allocate(ADDRESS, n);
            int next = 0;
            for (var h : source.headers().entrySet()) {
                names.setAtIndex(ADDRESS, next, a.allocateFrom(h.getKey()));
                texts.setAtIndex(ADDRESS, next++, a.allocateFrom(h.getValue()));
            }
            check((int) create.invokeExact(progPtr, a.allocateFrom(source.text()), a.allocateFrom(sourceName), n, texts, names), "nvrtcCreateProgram");
            MemorySegment prog = progPtr.get(ADDRESS, 0);
            try {
                List<String> opts = new ArrayList<>(options);
                opts.add("--gpu-architecture=" + arch);
                MemorySegment optArray = a.allocate(ADDRESS, opts.size());
                for (int i = 0; i < opts.size(); i++) optArray.setAtIndex(ADDRESS, i, a.allocateFrom(opts.get(i)));
                int rc = (int) compile.invokeExact(prog, opts.size(), optArray);
                String logText = programLog(a, prog);
                if (rc != 0) throw new CompileException(sourceName, id(), logText.isBlank() ? error(rc) : logText);
                MemorySegment size = a.allocate(JAVA_LONG);
                check((int) cubinSize.invokeExact(prog, size), "nvrtcGetCUBINSize");
                MemorySegment out = a.allocate(size.get(JAVA_LONG, 0));
                check((int) cubin.invokeExact(prog, out), "nvrtcGetCUBIN");
                return out.toArray(JAVA_BYTE);
            } finally {
                int ignored = (int) destroy.invokeExact(progPtr);
            }
        } catch (CompileException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private String programLog(Arena a, MemorySegment prog) throws Throwable {
        MemorySegment size = a.allocate(JAVA_LONG);
        check((int) logSize.invokeExact(prog, size), "nvrtcGetProgramLogSize");
        long n = size.get(JAVA_LONG, 0);
        if (n <= 1) return "";
        MemorySegment buf = a.allocate(n);
        check((int) log.invokeExact(prog, buf), "nvrtcGetProgramLog");
        return buf.getString(0);
    }

    private String error(int rc) {
        try {
            return ((MemorySegment) errorString.invokeExact(rc)).reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "NVRTC error " + rc;
        }
    }

    private void check(int rc, String what) {
        if (rc != 0) throw new IllegalStateException(what + " failed: " + error(rc));
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }
}
