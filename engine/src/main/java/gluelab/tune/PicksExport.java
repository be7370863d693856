package gluelab.tune;

import gluelab.device.ShippedPicks;
import gluelab.files.Json;
import gluelab.ops.OpId;

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
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * This machine's tuned picks (the tuning records beside the picks) gathered into a shipped-picks
 * file for one architecture: only picks of the fused kernels tuned on their family's current
 * sources, each with that family's source hash; a record tuned on other sources, or a generated
 * region's, is left out and counted. Merged into an existing file, the new picks replace those of
 * the same op, pass, dtype and shape; the file's other picks stay where their family's sources are
 * still current (so re-tuning one changed family leaves the others' picks as they were).
 */
public final class PicksExport {
    private PicksExport() {}

    /** What was gathered and what was left out, in words. */
    public record Result(ShippedPicks.File file, int tuned, int kept, int staleDropped, int otherSources, int otherArch, int unreadable) {
        public String summary() {
            return file.picks().size() + " picks for " + file.arch() + " (" + tuned + " from this machine's tuning"
                    + (kept > 0 || staleDropped > 0 ? ", " + kept + " kept from the merged file" : "") + ")"
                    + (staleDropped > 0 ? "; " + staleDropped + " of the merged file left out (their kernels' sources changed and they were not tuned again)" : "")
                    + (otherSources > 0 ? "; " + otherSources + " tuned on other kernel sources left out" : "")
                    + (otherArch > 0 ? "; " + otherArch + " of other architectures left out" : "")
                    + (unreadable > 0 ? "; " + unreadable + " unreadable records left out" : "");
        }
    }

    private static final Pattern CODE = Pattern.compile("(sm_\\d+) kernels@(\\w+) (.*)");
    private static final Pattern DIM = Pattern.compile("(\\w+)=(\\d+)");

    /** {@link #gather(Path, String, Map, String, String, Optional)} without a file to merge into. */
    public static Result gather(Path tuneDir, String arch, Map<OpId, String> sourceHashes, String tunedOn, String command) {
        return gather(tuneDir, arch, sourceHashes, tunedOn, command, Optional.empty());
    }

    /**
     * The picks in {@code tuneDir} for {@code arch} tuned on the current sources of their family
     * ({@code sourceHashes}, by op), merged into {@code merge}'s; {@code tunedOn} names the GPU and
     * driver, {@code command} how to make the file again. Later records of one shape win.
     */
    public static Result gather(Path tuneDir, String arch, Map<OpId, String> sourceHashes, String tunedOn, String command,
                                Optional<ShippedPicks.File> merge) {
        if (!Files.isDirectory(tuneDir)) throw new IllegalArgumentException("no tuning records in " + tuneDir + " (run gluelab tune on the GPU first)");
        merge.filter(m -> !m.arch().equals(arch)).ifPresent(m -> {
            throw new IllegalArgumentException("the file to merge into is for " + m.arch() + ", not " + arch);
        });
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
            String current = sourceHashes.get(OpId.of(r.op()));
            if (!m.group(2).equals(current)) { otherSources++; continue; }
            compiler = m.group(3);
            newest = Math.max(newest, modified(f));
            ShippedPicks.Pick p = new ShippedPicks.Pick(r.op(), r.pass(), r.dtype(), dims(r.shape()), current, r.pick(), round(r.pickUs()),
                    r.runnerUp(), round(r.runnerUpUs()));
            byShape.put(p.key(), p);
        }
        if (byShape.isEmpty()) {
            throw new IllegalArgumentException("no picks for " + arch + " tuned on these kernel sources in " + tuneDir
                    + " (" + otherSources + " on other sources, " + otherArch + " of other architectures)");
        }
        int tuned = byShape.size(), kept = 0, staleDropped = 0;
        if (merge.isPresent()) {
            for (ShippedPicks.Pick p : merge.get().picks()) {
                if (byShape.containsKey(p.key())) continue;
                if (!p.current(sourceHashes)) { staleDropped++; continue; }
                byShape.put(p.key(), p);
                kept++;
            }
            if (compiler != null && merge.get().compiler() != null && !compiler.equals(merge.get().compiler()) && kept > 0) {
                compiler = compiler + " (kept picks: " + merge.get().compiler() + ")";
            }
        }
        List<ShippedPicks.Pick> picks = new ArrayList<>(byShape.values());
        picks.sort(Comparator.comparing(ShippedPicks.Pick::op).thenComparing(ShippedPicks.Pick::pass).thenComparing(ShippedPicks.Pick::dtype)
                .thenComparing(p -> p.dims().toString()));
        String day = Instant.ofEpochMilli(newest).atZone(ZoneOffset.UTC).toLocalDate().toString();
        return new Result(new ShippedPicks.File(ShippedPicks.FORMAT, arch, compiler, tunedOn, day, command, picks),
                tuned, kept, staleDropped, otherSources, otherArch, unreadable);
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
