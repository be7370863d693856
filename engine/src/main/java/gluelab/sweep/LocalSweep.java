package gluelab.sweep;

import gluelab.progress.Progress;

import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One host, several devices: one worker process per device (each its own CUDA context and
 * calibration), fed shards from one queue so a fast device takes more. A shard that fails ends its
 * worker and a fresh one starts on that device (a CUDA fault is sticky for a whole process); a worker
 * that dies, or a device that cannot start three times running, retires that device: its shard is
 * marked FAILED and the other devices take the rest of the queue.
 */
public final class LocalSweep {
    static final int MAX_FAILURES_IN_A_ROW = 3;

    /** What one worker is doing now: its shard (null when idle) and its last progress line, or why it retired. */
    public record WorkerState(String worker, long pid, Shard shard, String detail, boolean retired) {}

    private final SweepDir dir;
    private final List<String> devices;
    /** One name per worker: the device, with "/n" added where a device is listed more than once (cpu/0, cpu/1). */
    private final List<String> slots = new ArrayList<>();
    private final WorkerCommand command;
    private final Progress progress;
    private final Queue<Shard> queue = new ConcurrentLinkedQueue<>();
    private final Map<String, WorkerState> states = new ConcurrentHashMap<>();
    private final AtomicInteger finished = new AtomicInteger();
    private final List<String> retired = Collections.synchronizedList(new ArrayList<>());
    private int total;

    public LocalSweep(SweepDir dir, List<String> devices, WorkerCommand command, Progress progress) {
        if (devices.isEmpty()) throw new IllegalArgumentException("no devices to run the sweep on");
        this.dir = dir;
        this.devices = List.copyOf(devices);
        for (int i = 0; i < devices.size(); i++) {
            String d = devices.get(i);
            slots.add(Collections.frequency(devices, d) > 1 ? d + "/" + i : d);
        }
        this.command = command;
        this.progress = progress;
    }

    /** The arguments that start a worker ({@link ShardMain}). */
    public static List<String> workerArgs(Path dir, String device) {
        return List.of("worker", dir.toAbsolutePath().toString(), "--device", device);
    }

    /** What each worker does now, by worker name (the device, or cpu/0, cpu/1 where a device repeats). */
    public Map<String, WorkerState> workers() { return Map.copyOf(states); }

    /** Runs every shard not yet published; returns every shard's status at the end. */
    public List<ShardStatus> run() {
        // Largest token counts first, so the shards left at the end are short and no device idles long.
        dir.shards().stream().filter(s -> dir.fileStatus(s).state() != ShardState.DONE)
                .sorted(Comparator.comparingLong(Shard::tokens).reversed()).forEach(queue::add);
        total = queue.size();
        progress.update("sweep", 0, total, devices.size() + " worker(s): " + String.join(", ", devices));
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < devices.size(); i++) {
            String slot = slots.get(i), device = devices.get(i);
            threads.add(Thread.ofPlatform().name("sweep-" + slot).start(() -> drive(slot, device)));
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.util.concurrent.CancellationException("sweep interrupted; shards in flight finish in their workers");
            }
        }
        for (Shard s; (s = queue.poll()) != null; ) dir.markFailed(s, "no device left to run it: " + String.join("; ", retired));
        progress.update("sweep", total, total, "done");
        return dir.fileStatuses();
    }

    private void drive(String slot, String device) {
        int failuresInARow = 0;
        while (!queue.isEmpty()) {
            if (failuresInARow >= MAX_FAILURES_IN_A_ROW) {
                WorkerState last = states.get(slot);
                retire(slot, failuresInARow + " failures in a row" + (last == null ? "" : "; last: " + last.detail()));
                return;
            }
            Process p;
            try {
                p = start(slot, device);
            } catch (IOException e) {
                retire(slot, "cannot start a worker: " + e.getMessage());
                return;
            }
            Outcome o = serve(slot, p);
            switch (o) {
                case DRAINED -> { return; }
                case SHARD_FAILED -> failuresInARow++;
                case UNUSABLE -> failuresInARow++;
                case DIED -> {
                    retire(slot, "its worker died (exit code " + exitCode(p) + "; see " + log(slot) + ")");
                    return;
                }
            }
        }
    }

    private enum Outcome { DRAINED, SHARD_FAILED, UNUSABLE, DIED }

    private Outcome serve(String slot, Process p) {
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8), true);
        Shard current = null;
        try (in; out) {
            WorkerMessage first = next(in);
            if (first == null || first.type() != WorkerMessage.Type.READY) {
                String why = first == null ? "worker exited before it was ready" : first.detail();
                states.put(slot, new WorkerState(slot, p.pid(), null, why, false));
                return first == null ? Outcome.DIED : Outcome.UNUSABLE;
            }
            while ((current = queue.poll()) != null) {
                states.put(slot, new WorkerState(slot, p.pid(), current, "starting", false));
                report();
                out.println("run " + current.index());
                WorkerMessage m;
                // A worker's own progress lines update its state only: the bar moves per shard.
                while ((m = next(in)) != null && m.type() == WorkerMessage.Type.PROGRESS) {
                    states.put(slot, new WorkerState(slot, p.pid(), current, m.detail(), false));
                }
                if (m == null) {
                    failDead(slot, p, current);
                    return Outcome.DIED;
                }
                finished.incrementAndGet();
                report();
                if (m.type() == WorkerMessage.Type.FAILED) return Outcome.SHARD_FAILED;
            }
            states.put(slot, new WorkerState(slot, p.pid(), null, "idle", false));
            out.close();
            return Outcome.DRAINED;
        } catch (IOException e) {
            if (current != null) failDead(slot, p, current);
            return Outcome.DIED;
        } finally {
            try {
                if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly();
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private void failDead(String slot, Process p, Shard s) {
        finished.incrementAndGet();
        ShardState st = dir.fileStatus(s).state();
        if (st != ShardState.DONE && st != ShardState.FAILED && st != ShardState.CANCELLED) {
            try {
                p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            dir.markFailed(s, "the worker on " + slot + " died while measuring it (exit code " + exitCode(p) + "; see " + log(slot) + ")");
        }
        report();
    }

    private void retire(String slot, String why) {
        retired.add(slot + ": " + why);
        WorkerState last = states.get(slot);
        states.put(slot, new WorkerState(slot, last == null ? -1 : last.pid(), null, why, true));
        report();
    }

    private void report() {
        StringBuilder sb = new StringBuilder();
        for (String d : slots) {
            WorkerState w = states.get(d);
            if (w == null) continue;
            if (!sb.isEmpty()) sb.append(" | ");
            sb.append(d).append(w.retired() ? " retired" : w.shard() == null ? " " + w.detail() : " " + w.shard().name());
        }
        progress.update("sweep", finished.get(), total, sb.toString());
    }

    private static WorkerMessage next(BufferedReader in) throws IOException {
        for (String line; (line = in.readLine()) != null; ) {
            WorkerMessage m = WorkerMessage.parse(line);
            if (m != null) return m;
        }
        return null;
    }

    private Process start(String slot, String device) throws IOException {
        Files.createDirectories(dir.logs());
        ProcessBuilder pb = new ProcessBuilder(command.command(workerArgs(dir.root(), device)));
        pb.environment().putAll(command.env());
        pb.redirectError(ProcessBuilder.Redirect.appendTo(log(slot).toFile()));
        return pb.start();
    }

    private Path log(String slot) { return dir.logs().resolve("worker-" + slot.replace(':', '_').replace('/', '-') + ".log"); }

    private static String exitCode(Process p) {
        return p.isAlive() ? "still running" : Integer.toString(p.exitValue());
    }
}
