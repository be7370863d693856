package gluelab.backend.cuda.compile;

import gluelab.files.AtomicFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compiled kernels keyed by what the code is (source, options, arch, compiler), never by who asks
 * for it, so a kernel every layer uses compiles once per distinct signature. Kept in memory and on
 * disk; every lookup is logged with its time and whether it compiled.
 */
public final class CompileCache {
    /** One lookup: how long it took and where the cubin came from. */
    public record Entry(String sourceName, String key, String origin, double millis, int cubinBytes) {}

    private static final Map<String, byte[]> MEMORY = new ConcurrentHashMap<>();

    private final Path dir;
    private final CudaCompiler compiler;
    private final List<Entry> log = java.util.Collections.synchronizedList(new ArrayList<>());

    public CompileCache(Path dir, CudaCompiler compiler) {
        this.dir = dir;
        this.compiler = compiler;
    }

    public CudaCompiler compiler() { return compiler; }

    public List<Entry> log() { return List.copyOf(log); }

    /** What the code is: the source with its headers, the arch, the options and the compiler. */
    public static String key(SourceUnit source, String arch, List<String> options, String compilerId) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (String part : List.of(source.digest(), arch, String.join(" ", options), compilerId)) {
                d.update(part.getBytes(StandardCharsets.UTF_8));
                d.update((byte) 0);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public byte[] cubin(SourceUnit source, String arch, List<String> options) {
        return fetch(source, arch, options).bytes();
    }

    /** A cubin and where it came from ("compiled", "disk" or "memory"), with the lookup's time. */
    public record Fetched(byte[] bytes, String origin, double millis) {}

    public Fetched fetch(SourceUnit source, String arch, List<String> options) {
        return fetch(source, arch, options, compiler);
    }

    /**
     * The same lookup, compiling (on a miss) through {@code via}: compile worker processes that run
     * the same compiler as this cache's, whose id the key names. Only a whole cubin is stored.
     */
    public Fetched fetch(SourceUnit source, String arch, List<String> options, CudaCompiler via) {
        if (!via.id().equals(compiler.id())) {
            throw new IllegalArgumentException("compiler " + via.id() + " cannot fill a cache keyed by " + compiler.id());
        }
        long t0 = System.nanoTime();
        String key = key(source, arch, options, compiler.id());
        byte[] bytes = MEMORY.get(key);
        String origin = "memory";
        if (bytes == null) {
            Path file = dir.resolve(key + ".cubin");
            if (Files.isRegularFile(file)) {
                try {
                    bytes = Files.readAllBytes(file);
                    origin = "disk";
                } catch (IOException e) {
                    bytes = null;
                }
            }
            if (bytes == null) {
                bytes = via.compileCubin(source, arch, options);
                origin = "compiled";
                AtomicFiles.write(file, bytes);
            }
            MEMORY.put(key, bytes);
        }
        double millis = (System.nanoTime() - t0) / 1e6;
        log.add(new Entry(source.name(), key.substring(0, 12), origin, millis, bytes.length));
        return new Fetched(bytes, origin, millis);
    }

    /** Forgets the in-memory copies (tests use this to exercise the disk cache). */
    public static void clearMemory() { MEMORY.clear(); }
}
