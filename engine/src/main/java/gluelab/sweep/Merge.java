package gluelab.sweep;

import gluelab.calibrate.Calibration;
import gluelab.record.Environment;
import gluelab.record.ExperimentRecord;
import gluelab.record.RunKind;
import gluelab.record.RecordStore;
import gluelab.ops.MeasureKey;
import gluelab.record.Row;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Merges shard records into one experiment per model: the union of their rows, in plan order, as
 * one ordinary record (so tables, ranking, charts and findings come from the same code as any run).
 * Refuses shards measured on different devices, by different code or with different calibrations
 * or conditions unless {@code allowMixed}; names every expected shard that is missing or FAILED.
 * Where a shard ran in several confirming processes, the merged row is the process with the middle
 * median, and every process's median is kept in the record's telemetry.
 */
public final class Merge {
    /** Copy bandwidths further apart than this (relative) are different calibrations. */
    public static final double CALIBRATION_TOLERANCE = 0.05;

    /** A loaded shard record and where it came from. */
    public record Part(ExperimentRecord record, Path source) {
        String name() { return record.parameters().getOrDefault(ShardBench.SHARD, record.id()); }

        int index() { return Integer.parseInt(record.parameters().getOrDefault(ShardBench.SHARD_INDEX, "-1")); }
    }

    /** Merged experiments (one per model), the shards not merged and why, and what was mixed (when allowed). */
    public record Result(List<ExperimentRecord> experiments, List<Part> parts, List<ShardStatus> notMerged, List<String> unloadable,
                         List<String> mixed) {
        public boolean complete() { return notMerged.isEmpty() && unloadable.isEmpty(); }
    }

    private Merge() {}

    /** Merges the shards found in sweep folders, shard folders or run folders. */
    public static Result of(List<Path> dirs, boolean allowMixed) { return of(dirs, allowMixed, SweepDir::fileStatuses); }

    /** As {@link #of(List, boolean)}, with a sweep's shard states from {@code statuses} (a scheduler's view). */
    public static Result of(List<Path> dirs, boolean allowMixed, Function<SweepDir, List<ShardStatus>> statuses) {
        if (dirs.isEmpty()) throw new IllegalArgumentException("name at least one folder to merge");
        List<Part> parts = new ArrayList<>();
        List<ShardStatus> notMerged = new ArrayList<>();
        List<String> unloadable = new ArrayList<>();
        String sweepId = null;
        for (Path d : dirs) {
            if (!Files.isDirectory(d)) throw new IllegalArgumentException("no such folder to merge: " + d);
            if (SweepDir.isSweep(d)) {
                SweepDir sweep = SweepDir.open(d);
                sweepId = sweepId == null ? sweep.id() : sweepId;
                for (ShardStatus st : statuses.apply(sweep)) {
                    if (st.state() == ShardState.DONE) parts.add(new Part(RecordStore.load(sweep.shardDir(st.shard())), sweep.shardDir(st.shard())));
                    else notMerged.add(st);
                }
            } else if (Files.isRegularFile(d.resolve(RecordStore.RECORD_FILE))) {
                parts.add(new Part(RecordStore.load(d), d));
            } else {
                RecordStore store = new RecordStore(d);
                List<String> problems = new ArrayList<>();
                for (ExperimentRecord r : store.loadAll(problems)) parts.add(new Part(r, d.resolve(r.id())));
                unloadable.addAll(problems);
                if (problems.isEmpty() && parts.isEmpty()) throw new IllegalArgumentException("no sweep, shard or run records in " + d);
            }
        }
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("nothing to merge: no shard has finished" + describe(notMerged, unloadable));
        }
        refuseDuplicates(parts);
        List<String> mixed = mixed(parts);
        if (!mixed.isEmpty() && !allowMixed) {
            throw new IllegalArgumentException("shards differ: " + String.join("; ", mixed)
                    + ". Merge each group on its own, or pass --allow-mixed to merge them anyway (the record says they are mixed)");
        }
        String id = sweepId != null ? sweepId : "merge-" + parts.getFirst().record().id();
        List<ExperimentRecord> out = new ArrayList<>();
        Map<String, List<Part>> byModel = parts.stream().collect(Collectors.groupingBy(p -> p.record().model(), LinkedHashMap::new, Collectors.toList()));
        for (var e : byModel.entrySet()) out.add(merge(id + "-" + e.getKey(), e.getValue(), notMerged, mixed));
        return new Result(out, parts, notMerged, unloadable, mixed);
    }

    private static ExperimentRecord merge(String id, List<Part> parts, List<ShardStatus> notMerged, List<String> mixed) {
        // Shard indices follow the plan's order (model, tokens as given, op, process), which is how one bench run orders its rows.
        List<Part> ordered = parts.stream().sorted(Comparator.comparingInt(Part::index)).toList();
        ExperimentRecord first = ordered.getFirst().record();
        Map<MeasureKey, List<Row>> byKey = new LinkedHashMap<>();
        for (Part p : ordered) for (Row r : p.record().rows()) byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
        Map<String, String> telemetry = new LinkedHashMap<>();
        List<Row> rows = new ArrayList<>();
        for (var e : byKey.entrySet()) {
            List<Row> repeats = e.getValue();
            if (repeats.size() > 1) {
                telemetry.put("confirm." + e.getKey(), repeats.stream().map(r -> String.format(Locale.ROOT, "%.2f", r.measuredUs()))
                        .collect(Collectors.joining(",")) + " us");
                repeats = repeats.stream().sorted(Comparator.comparingDouble(Row::measuredUs)).toList();
            }
            rows.add(repeats.get((repeats.size() - 1) / 2));
        }
        for (Part p : ordered) {
            telemetry.put("shard." + p.name(), p.record().parameters().getOrDefault("device", "?") + " on "
                    + p.record().environment().host() + ", " + p.record().environment().calibration().describe());
        }
        Map<String, String> params = new LinkedHashMap<>(first.parameters());
        // A shard's notes (fewer placements than asked) are its own, not the merged experiment's.
        params.keySet().removeAll(List.of(ShardBench.SHARD, ShardBench.SHARD_INDEX, ShardBench.PROCESS, "notes"));
        params.put("ops", distinct(ordered, r -> r.parameters().get("ops")));
        params.put("tokens", distinct(ordered, r -> r.parameters().get("tokens")));
        params.put("device", distinct(ordered, r -> r.parameters().get("device")));
        params.put("shards", Integer.toString(ordered.size()));
        if (!notMerged.isEmpty()) params.put("notMerged", notMerged.stream().map(s -> s.name() + " (" + s.state() + ")").collect(Collectors.joining(", ")));
        if (!mixed.isEmpty()) params.put("mixed", String.join("; ", mixed));
        Environment env = first.environment();
        String started = ordered.stream().map(p -> p.record().environment().startedAt()).filter(Objects::nonNull).min(String::compareTo).orElse(env.startedAt());
        String finished = ordered.stream().map(p -> p.record().finishedAt()).filter(Objects::nonNull).max(String::compareTo).orElse(first.finishedAt());
        Environment merged = new Environment(env.gluelabVersion(), env.jvm(), env.os(), env.host(), env.gitCommit(), env.gitDirty(),
                env.device(), env.calibration(), started);
        return ExperimentRecord.builder(id, RunKind.SWEEP, first.spec()).parameters(params).telemetry(telemetry).environment(merged).rows(rows)
                .stopFraction(first.stopFraction()).finishedAt(finished).build();
    }

    private static void refuseDuplicates(List<Part> parts) {
        Map<String, Part> seen = new HashMap<>();
        for (Part p : parts) {
            Part before = seen.putIfAbsent(p.name(), p);
            if (before != null) {
                throw new IllegalArgumentException("shard " + p.name() + " is in two places: " + before.source() + " and " + p.source() + "; merge one of them");
            }
        }
    }

    /** One line per kind of difference: devices, code, calibrations, conditions. */
    static List<String> mixed(List<Part> parts) {
        List<String> out = new ArrayList<>();
        differs(out, "devices", parts, r -> {
            var d = r.environment().device();
            return d.kind() + " " + d.name() + " " + (d.memoryBytes() >> 20) + " MiB, driver " + d.driverVersion() + ", runtime " + d.runtimeVersion();
        });
        differs(out, "code versions", parts, r -> "gluelab " + r.environment().gluelabVersion() + " at " + r.environment().gitCommit()
                + (r.environment().gitDirty() ? " (uncommitted changes)" : ""));
        differs(out, "conditions", parts, r -> String.join(" ", r.parameters().getOrDefault("dtype", "?"), r.parameters().getOrDefault("mode", "?"),
                "variants " + r.parameters().getOrDefault("variants", "?"), "passes " + r.parameters().getOrDefault("passes", "?"),
                "check " + r.parameters().getOrDefault("checkTokens", "?")));
        Calibration ref = parts.getFirst().record().environment().calibration();
        List<Part> off = parts.stream().filter(p -> !sameCalibration(ref, p.record().environment().calibration())).toList();
        if (!off.isEmpty()) {
            out.add("calibrations (copy bandwidth more than " + Math.round(CALIBRATION_TOLERANCE * 100) + "% apart, or given vs measured): "
                    + parts.getFirst().name() + " has " + ref.describe() + " but " + names(off) + " "
                    + (off.size() == 1 ? "has " : "have e.g. ") + off.getFirst().record().environment().calibration().describe());
        }
        return out;
    }

    private static boolean sameCalibration(Calibration a, Calibration b) {
        boolean givenA = "given".equals(a.deviceFingerprint()), givenB = "given".equals(b.deviceFingerprint());
        if (givenA != givenB) return false;
        return Math.abs(a.bandwidth() - b.bandwidth()) <= CALIBRATION_TOLERANCE * Math.max(a.bandwidth(), b.bandwidth());
    }

    private static void differs(List<String> out, String what, List<Part> parts, Function<ExperimentRecord, String> key) {
        Map<String, List<Part>> groups = parts.stream().collect(Collectors.groupingBy(p -> key.apply(p.record()), LinkedHashMap::new, Collectors.toList()));
        if (groups.size() < 2) return;
        out.add("different " + what + ": " + groups.entrySet().stream().map(e -> e.getKey() + " (" + names(e.getValue()) + ")")
                .collect(Collectors.joining(" vs ")));
    }

    private static String names(List<Part> parts) {
        List<String> n = parts.stream().map(Part::name).toList();
        return n.size() <= 3 ? String.join(", ", n) : String.join(", ", n.subList(0, 3)) + " and " + (n.size() - 3) + " more";
    }

    private static String distinct(List<Part> parts, Function<ExperimentRecord, String> value) {
        return parts.stream().map(p -> value.apply(p.record())).filter(Objects::nonNull)
                .flatMap(v -> Stream.of(v.split(","))).distinct().collect(Collectors.joining(","));
    }

    private static String describe(List<ShardStatus> notMerged, List<String> unloadable) {
        StringBuilder sb = new StringBuilder();
        if (!notMerged.isEmpty()) sb.append("; not finished: ").append(notMerged.stream().map(s -> s.name() + " " + s.state()).collect(Collectors.joining(", ")));
        if (!unloadable.isEmpty()) sb.append("; ").append(String.join("; ", unloadable));
        return sb.toString();
    }
}
