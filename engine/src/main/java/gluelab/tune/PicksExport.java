package gluelab.tune;

import gluelab.device.ShippedPicks;
import gluelab.files.Json;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * This machine's tuned picks (the tuning records beside the picks) gathered into a shipped-picks
 * file for one architecture: only picks of the fused kernels tuned on the given kernel sources; a
 * record tuned on other sources, or a generated region's, is left out and counted.
 */
public final class PicksExport {
    private PicksExport() {}

    /** What was gathered and what was left out, in words. */
    public record Result(ShippedPicks.File file, int otherSources, int otherArch, int unreadable) {
        public String summary() {
            return file.picks().size() + " picks for " + file.arch() + " (kernels@" + file.kernels() + ")"
                    + (otherSources > 0 ? "; " + otherSources + " tuned on other kernel sources left out" : "")
                    + (otherArch > 0 ? "; " + otherArch + " of other architectures left out" : "")
                    + (unreadable > 0 ? "; " + unreadable + " unreadable records left out" : "");
        }
    }

    private static final Pattern CODE = Pattern.compile("(sm_\\d+) kernels@(\\w+) (.*)");
    private static final Pattern DIM = Pattern.compile("(\\w+)=(\\d+)");

    /**
     * The picks in {@code tuneDir} for {@code arch} tuned on {@code kernelsHash}; {@code tunedOn} names
     * the GPU and driver, {@code command} how to make the file again. Later records of one shape win.
     */
    public static Result gather(Path tuneDir, String arch, String kernelsHash, String tunedOn, String command) {
        if (!Files.isDirectory(tuneDir)) throw new IllegalArgumentException("no tuning records in " + tuneDir + " (run gluelab tune on the GPU first)");
        List<Path> files;
        try (Stream<Path> s = Files.list(tuneDir)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted(Comparator.comparing(PicksExport::modified)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + tuneDir + ": " + e.getMessage(), e);
        }
        Map<String, ShippedPicks.Pick> byShape = new LinkedHashMap<>();
        String compiler = null;
        long newest = 0;
        int otherSources = 0, otherArch = 0, unreadable = 0;
        for (Path f : files) {
            TuneResult r;
            try {
                r = Json.MAPPER.readValue(f.toFile(), TuneResult.class);
            } catch (IOException e) {
                unreadable++;
                continue;
            }
            Matcher m = r.code() == null ? null : CODE.matcher(r.code());
            if (m == null || !m.matches() || TuneResult.SHIPPED.equals(r.mode())) continue;
            if (!m.group(1).equals(arch)) { otherArch++; continue; }
            if (!m.group(2).equals(kernelsHash)) { otherSources++; continue; }
            compiler = m.group(3);
            newest = Math.max(newest, modified(f));
            Map<String, Long> dims = dims(r.shape());
            ShippedPicks.Pick p = new ShippedPicks.Pick(r.op(), r.pass(), r.dtype(), dims, r.pick(), round(r.pickUs()),
                    r.runnerUp(), round(r.runnerUpUs()));
            byShape.put(r.op() + "/" + r.pass() + "/" + r.dtype() + "/" + p.dims(), p);
        }
        if (byShape.isEmpty()) {
            throw new IllegalArgumentException("no picks for " + arch + " tuned on kernels@" + kernelsHash + " in " + tuneDir
                    + " (" + otherSources + " on other sources, " + otherArch + " of other architectures)");
        }
        List<ShippedPicks.Pick> picks = new ArrayList<>(byShape.values());
        picks.sort(Comparator.comparing(ShippedPicks.Pick::op).thenComparing(ShippedPicks.Pick::pass).thenComparing(ShippedPicks.Pick::dtype)
                .thenComparing(p -> p.dims().toString()));
        String day = Instant.ofEpochMilli(newest).atZone(ZoneOffset.UTC).toLocalDate().toString();
        return new Result(new ShippedPicks.File(ShippedPicks.FORMAT, arch, kernelsHash, compiler, tunedOn, day, command, picks),
                otherSources, otherArch, unreadable);
    }

    /** The dims of a tuning key's shape text, "{D=4096, T=8192}{eps=1.0E-5}": the first braces only. */
    static Map<String, Long> dims(String shape) {
        int end = shape.indexOf('}');
        if (!shape.startsWith("{") || end < 0) throw new IllegalArgumentException("tuning record shape '" + shape + "' has no dims");
        Map<String, Long> dims = new LinkedHashMap<>();
        Matcher m = DIM.matcher(shape.substring(1, end));
        while (m.find()) dims.put(m.group(1), Long.parseLong(m.group(2)));
        return dims;
    }

    private static double round(double us) { return Double.isFinite(us) ? Math.round(us * 100) / 100.0 : us; }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }
}
