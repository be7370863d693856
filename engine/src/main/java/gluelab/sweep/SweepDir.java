package gluelab.sweep;

import gluelab.files.AtomicFiles;
import gluelab.files.Json;
import gluelab.record.RecordStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A sweep's folder, shared by every worker (on a cluster: a shared file system):
 * {@code sweep.json} (the plan), {@code shards/<shard>/} (one ordinary run folder per shard,
 * published atomically; {@code shards/.<shard>.partial/FAILED} when it failed), {@code logs/},
 * {@code merged/<model>/} (the merged experiment).
 */
public final class SweepDir {
    public static final String MANIFEST = "sweep.json";

    private final Path root;
    private final SweepManifest manifest;

    private SweepDir(Path root, SweepManifest manifest) {
        this.root = root;
        this.manifest = manifest;
    }

    /** Creates the folder for a new sweep of {@code plan}; refuses a folder that already holds one. */
    public static SweepDir create(Path root, SweepPlan plan) {
        if (Files.exists(root.resolve(MANIFEST))) {
            throw new IllegalArgumentException("sweep folder " + root + " already holds a sweep; pick a new folder or resume it");
        }
        String id = "sweep-" + java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(java.time.ZoneOffset.UTC).format(Instant.now())
                + "-" + Long.toHexString(System.nanoTime() & 0xfff);
        SweepManifest m = new SweepManifest(SweepManifest.FORMAT, id, plan, Instant.now().toString());
        try {
            Files.createDirectories(root.resolve("shards"));
            Files.createDirectories(root.resolve("logs"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create sweep folder " + root + ": " + e.getMessage(), e);
        }
        AtomicFiles.write(root.resolve(MANIFEST), Json.write(m));
        return new SweepDir(root, m);
    }

    public static boolean isSweep(Path dir) { return Files.isRegularFile(dir.resolve(MANIFEST)); }

    /** Opens an existing sweep folder; errors name the file. */
    public static SweepDir open(Path root) {
        Path file = root.resolve(MANIFEST);
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException("no sweep at " + root + " (no " + MANIFEST + ")");
        try {
            SweepManifest m = Json.MAPPER.readValue(file.toFile(), SweepManifest.class);
            if (m == null || m.format() != SweepManifest.FORMAT || m.plan() == null) {
                throw new IllegalArgumentException("sweep manifest " + file + " is not of format " + SweepManifest.FORMAT);
            }
            return new SweepDir(root, m);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read sweep manifest " + file + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (e instanceof IllegalArgumentException iae && iae.getMessage().startsWith("sweep manifest")) throw iae;
            throw new IllegalArgumentException("sweep manifest " + file + " is invalid: " + e.getMessage(), e);
        }
    }

    public Path root() { return root; }

    public String id() { return manifest.id(); }

    public SweepPlan plan() { return manifest.plan(); }

    public List<Shard> shards() { return manifest.plan().shards(); }

    public RecordStore shardStore() { return new RecordStore(root.resolve("shards")); }

    public Path shardDir(Shard s) { return root.resolve("shards").resolve(s.name()); }

    public Path partialDir(Shard s) { return root.resolve("shards").resolve("." + s.name() + ".partial"); }

    public Path logs() { return root.resolve("logs"); }

    public Path merged() { return root.resolve("merged"); }

    /** What the shard's folder says: DONE (record published), FAILED (marker), RUNNING (partial), else WAITING. */
    public ShardStatus fileStatus(Shard s) {
        if (Files.isRegularFile(shardDir(s).resolve(RecordStore.RECORD_FILE))) return new ShardStatus(s, ShardState.DONE, "");
        Path failed = partialDir(s).resolve(RecordStore.FAILED_FILE);
        if (Files.isRegularFile(failed)) {
            String why;
            try {
                why = Files.readString(failed).trim();
            } catch (IOException e) {
                why = "(unreadable FAILED marker)";
            }
            return new ShardStatus(s, why.startsWith(ShardRunner.CANCELLED) ? ShardState.CANCELLED : ShardState.FAILED, why);
        }
        if (Files.isDirectory(partialDir(s))) return new ShardStatus(s, ShardState.RUNNING, "started");
        return new ShardStatus(s, ShardState.WAITING, "");
    }

    public List<ShardStatus> fileStatuses() {
        List<ShardStatus> out = new ArrayList<>();
        for (Shard s : shards()) out.add(fileStatus(s));
        return out;
    }

    /** Marks a shard FAILED from outside its process (its worker died); keeps any partial data. */
    public void markFailed(Shard s, String why) { RecordStore.fail(partialDir(s), why); }

    /** Deletes a folder and everything in it (a stale partial attempt, a replaced merge); nothing when absent. */
    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) return;
        try (java.util.stream.Stream<Path> walk = Files.walk(p)) {
            for (Path x : walk.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(x);
        }
    }
}
