package gluelab.backend.cuda.compile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** nvcc in a subprocess: the fallback when no NVRTC library can be loaded. */
public final class NvccCompiler implements CudaCompiler {
    private final Path nvcc;
    private final String version;

    private NvccCompiler(Path nvcc, String version) {
        this.nvcc = nvcc;
        this.version = version;
    }

    public static NvccCompiler find() {
        List<Path> candidates = new ArrayList<>();
        String home = System.getenv("CUDA_HOME");
        if (home != null) candidates.add(Path.of(home, "bin", "nvcc"));
        String path = System.getenv("PATH");
        if (path != null) for (String d : path.split(":")) candidates.add(Path.of(d, "nvcc"));
        candidates.add(Path.of("/usr/local/cuda/bin/nvcc"));
        for (Path p : candidates) {
            if (Files.isExecutable(p)) {
                String v = run(List.of(p.toString(), "--version"), 30).lines().filter(l -> l.contains("release"))
                        .findFirst().map(String::strip).orElse("unknown version");
                return new NvccCompiler(p, v);
            }
        }
        throw new IllegalStateException("nvcc not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin");
    }

    @Override public String id() { return "nvcc " + version; }

    @Override public byte[] compileCubin(SourceUnit source, String arch, List<String> options) {
        String sourceName = source.name();
        Path dir = null;
        try {
            dir = Files.createTempDirectory("gluelab-nvcc");
            Path src = dir.resolve(sourceName.endsWith(".cu") ? sourceName : sourceName + ".cu");
            Path out = dir.resolve("out.cubin");
            Files.writeString(src, source.text());
            // The headers as files of an include folder of their own (-I), so only these are found.
            Path include = Files.createDirectory(dir.resolve("include"));
            for (var h : source.headers().entrySet()) Files.writeString(include.resolve(h.getKey()), h.getValue());
            List<String> cmd = new ArrayList<>(List.of(nvcc.toString(), "-cubin", "-arch=" + arch, "-I" + include, "-o", out.toString()));
            cmd.addAll(options);
            cmd.add(src.toString());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new CompileException(sourceName, id(), "nvcc timed out after 300 s");
            }
            if (p.exitValue() != 0) throw new CompileException(sourceName, id(), log.replace(src.toString(), sourceName).replace(include + "/", ""));
            return Files.readAllBytes(out);
        } catch (IOException e) {
            throw new IllegalStateException("nvcc failed to run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while compiling " + sourceName, e);
        } finally {
            if (dir != null) deleteQuietly(dir);
        }
    }

    private static String run(List<String> cmd, int seconds) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(seconds, TimeUnit.SECONDS);
            return out;
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static void deleteQuietly(Path dir) {
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // A temp folder left behind is harmless.
        }
    }
}
