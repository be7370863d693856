package gluelab.device;

import com.fasterxml.jackson.annotation.JsonProperty;
import gluelab.files.Json;
import gluelab.ops.OpId;

import java.io.IOException;
import java.io.InputStream;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Launch configurations tuned on a reference GPU and shipped with the kernels, one file per
 * architecture ({@code gluelab/kernels/picks/<arch>.json} on the class path): what a device uses
 * where it has no pick of its own, so a first run starts from tuned kernels instead of defaults.
 * Each pick records the source hash of its kernel's family ({@code kernels}); a pick whose family's
 * sources changed since is not used, the other families' picks still are.
 *
 * <p>An instance takes the pick of the same op, pass and dtype at the same dims; an unseen shape
 * takes the pick of the nearest tuned shape ({@link #nearest}): the one with the smallest sum over
 * dims of |ln(a / b)| (a shape twice as large in one dim is as far as one half as large), among
 * those with the same dim names whose config is valid for the instance; ties go to more tokens.
 */
public final class ShippedPicks {
    /** The file's format version; a file of another version is refused by name. Format 2: a source hash per pick. */
    public static final int FORMAT = 2;

    /** One tuned pick: where it was tuned (op, pass, dtype, dims), on which sources of its kernel's family, and what it measured there. */
    public record Pick(String op, String pass, String dtype, Map<String, Long> dims, String kernels, String config,
                       @JsonProperty("pick_us") double pickUs, @JsonProperty("runner_up") String runnerUp,
                       @JsonProperty("runner_up_us") double runnerUpUs) {
        public Pick {
            dims = java.util.Collections.unmodifiableMap(new TreeMap<>(dims));
        }

        double distance(Map<String, Long> other) {
            double d = 0;
            for (var e : dims.entrySet()) d += Math.abs(Math.log((double) e.getValue() / other.get(e.getKey())));
            return d;
        }

        long tokens() { return dims.getOrDefault("T", 0L); }

        /** Op, pass, dtype and dims: one pick per key in a file. */
        public String key() { return op + "/" + pass + "/" + dtype + "/" + dims; }

        /** Whether its family's sources are still the ones it was tuned on. */
        public boolean current(Map<OpId, String> sourceHashes) { return kernels.equals(sourceHashes.get(OpId.of(op))); }
    }

    /**
     * The shipped file: the architecture and the compiler it was tuned with, the GPU and driver,
     * when, the command that regenerates it, and the picks.
     */
    public record File(int format, String arch, String compiler, @JsonProperty("tuned_on") String tunedOn,
                       String tuned, String command, List<Pick> picks) {
        public File {
            picks = picks == null ? List.of() : List.copyOf(picks);
        }
    }

    /** Which pick an instance got, and whether it was tuned at this very shape. */
    public record Match(Pick pick, boolean exact) {
        /** "shipped (tuned at T=8192)" or "shipped". */
        public String describe() { return exact ? "shipped" : "shipped (nearest tuned shape " + pick.dims() + ")"; }
    }

    private static final ShippedPicks NONE = new ShippedPicks(null, "no shipped picks");

    private final File file;
    private final String status;

    private ShippedPicks(File file, String status) {
        this.file = file;
        this.status = status;
    }

    /** Nothing shipped (a device without tuned picks, the CPU). */
    public static ShippedPicks none() { return NONE; }

    /** The picks for {@code arch} whose family's sources are still those of {@code sourceHashes} (each fused op's family hash); the others are left out, with the reason in {@link #status()}. */
    public static ShippedPicks forKernels(String arch, Map<OpId, String> sourceHashes) {
        String resource = "gluelab/kernels/picks/" + arch + ".json";
        try (InputStream in = ShippedPicks.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) return new ShippedPicks(null, "no shipped picks for " + arch);
            return of(read(in.readAllBytes(), resource), sourceHashes);
        } catch (IOException e) {
            return new ShippedPicks(null, "shipped picks " + resource + " unreadable: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            return new ShippedPicks(null, "shipped picks not used: " + e.getMessage());
        }
    }

    /** The picks of a parsed file tuned on the current sources of their family ({@code sourceHashes}, by op). */
    public static ShippedPicks of(File f, Map<OpId, String> sourceHashes) {
        List<Pick> current = f.picks().stream().filter(p -> p.current(sourceHashes)).toList();
        java.util.SortedSet<String> stale = new java.util.TreeSet<>();
        f.picks().stream().filter(p -> !p.current(sourceHashes)).forEach(p -> stale.add(p.op()));
        String staleText = stale.isEmpty() ? "" : (f.picks().size() - current.size()) + " picks of " + String.join(", ", stale)
                + " not used: tuned on other sources of their kernels (these are " + stale.stream()
                .map(op -> op + " kernels@" + sourceHashes.getOrDefault(OpId.of(op), "none")).collect(java.util.stream.Collectors.joining(", "))
                + "; run gluelab tune)";
        if (current.isEmpty()) return new ShippedPicks(null, "shipped picks for " + f.arch() + ": " + staleText);
        File used = new File(f.format(), f.arch(), f.compiler(), f.tunedOn(), f.tuned(), f.command(), current);
        return new ShippedPicks(used, current.size() + " shipped picks for " + f.arch() + ", tuned on " + f.tunedOn() + " (" + f.tuned() + ")"
                + (staleText.isEmpty() ? "" : "; " + staleText));
    }

    /** Parses a shipped file; a malformed one is an error naming {@code source} and the field. */
    public static File read(byte[] json, String source) {
        File f;
        try {
            f = Json.MAPPER.readValue(json, File.class);
        } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
            throw new IllegalArgumentException(source + ": " + Json.fieldPath(e) + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException(source + ": not a shipped-picks file: " + e.getMessage());
        }
        if (f.format() != FORMAT) throw new IllegalArgumentException(source + ": format " + f.format() + ", this gluelab reads format " + FORMAT);
        if (f.arch() == null) throw new IllegalArgumentException(source + ": needs 'arch'");
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (int i = 0; i < f.picks().size(); i++) {
            Pick p = f.picks().get(i);
            if (p.op() == null || p.pass() == null || p.dtype() == null || p.kernels() == null || p.config() == null || p.dims().isEmpty()) {
                throw new IllegalArgumentException(source + ": picks[" + i + "] needs op, pass, dtype, dims, kernels and config");
            }
            for (var d : p.dims().entrySet()) {
                if (d.getValue() == null || d.getValue() < 1) throw new IllegalArgumentException(source + ": picks[" + i + "].dims." + d.getKey() + " must be >= 1");
            }
            if (!keys.add(p.key())) throw new IllegalArgumentException(source + ": picks[" + i + "]: a second pick for " + p.key());
        }
        return f;
    }

    /** What was loaded, or why nothing is used. */
    public String status() { return status; }

    /** The file with the picks that are used (those tuned on their family's current sources). */
    public Optional<File> file() { return Optional.ofNullable(file); }
    /** The pick for the instance: at its shape, else at the nearest tuned shape whose config is one of {@code valid}. */
    public Optional<Match> pick(OpInstance in, List<KernelConfig> valid) {
        if (file == null) return Optional.empty();
        List<String> ids = valid.stream().map(KernelConfig::id).toList();
        return nearest(file.picks(), in.op().name(), in.pass().id(), in.shape().dtype().id(), in.shape().dims(), ids);
    }

    /** The rule of the class comment, on plain data (tested on its own). */
    public static Optional<Match> nearest(List<Pick> picks, String op, String pass, String dtype, Map<String, Long> dims, List<String> validConfigs) {
        return picks.stream()
                .filter(p -> p.op().equals(op) && p.pass().equals(pass) && p.dtype().equals(dtype))
                .filter(p -> p.dims().keySet().equals(dims.keySet()) && validConfigs.contains(p.config()))
                .min(Comparator.<Pick>comparingDouble(p -> p.distance(dims)).thenComparing(Comparator.comparingLong(Pick::tokens).reversed()))
                .map(p -> new Match(p, p.distance(dims) == 0));
    }
}
