package gluelab.bench;

import gluelab.device.Buffer;
import gluelab.device.Device;
import gluelab.device.Launch;
import gluelab.device.OpBuffers;
import gluelab.device.OpInstance;
import gluelab.ops.GlueOp;
import gluelab.ops.OpShape;
import gluelab.ops.Pass;
import gluelab.ops.Variant;
import gluelab.tensor.Tensor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A group's buffers placed several times over: each placement has its own inputs (the same
 * values), outputs and prepared launch of every variant (so an eager variant's scratch is placed
 * anew too), and a direct row rotates through all of them launch by launch ({@link RotatingLaunch}).
 *
 * <p>Why: a cold launch of data that fits in the GPU's L2 takes a level from where the driver put
 * its buffers (DRAM channels and banks, L2 slices, all hashed from physical addresses). The level
 * is fixed for a process and differs between processes: on the H200, 2k-token rows sat 3-4% apart
 * from one process to the next while each was flat within its process, and a larger cache flush
 * did not change that. A measurement tied to one memory layout is biased by it, as Mytkowicz et al.
 * showed for link order and environment size ("Producing wrong data without doing anything
 * obviously wrong", ASPLOS 2009); Curtsinger and Berger's Stabilizer re-randomises layout during a
 * run so that many layouts are averaged. Rotating through P placements averages P layouts in every
 * process, so two processes agree more closely.
 *
 * <p>How many: the asked count, but placements of one group hold at most {@link #MAX_BYTES}
 * together (arguments and scratch), and the placements after the first use at most half of the
 * device's free memory (fewer are used, with a note, when they do not fit; a later placement whose
 * allocation still fails is dropped the same way). 2 GiB keeps all 8 placements for groups up to
 * 256 MiB, the groups whose rows move between processes (2k and 4k tokens: 0.3-135 MB of arguments), and costs
 * little: larger groups span so many pages that they average the layout themselves (16k/32k rows
 * agreed within 0.4% between processes) and get fewer placements or one.
 */
public final class Placements implements AutoCloseable {
    /** The most bytes (arguments and scratch) a group's placements hold together. */
    public static final long MAX_BYTES = 2L << 30;

    private final List<Placement> placements;

    /** One argument set with each variant's launch bound to it. */
    private record Placement(Map<String, Buffer> args, List<Launch> launches) {
        long bytes() {
            return args.values().stream().mapToLong(b -> b.spec().bytes()).sum() + launches.stream().mapToLong(Launch::scratchBytes).sum();
        }

        void close() {
            List<Launch> reversed = new ArrayList<>(launches);
            Collections.reverse(reversed);
            reversed.forEach(Launch::close);
            args.values().forEach(Buffer::close);
        }
    }

    private Placements(List<Placement> placements) { this.placements = List.copyOf(placements); }

    /**
     * Places the group's buffers up to {@code asked} times (see the class comment for how many),
     * inputs filled from {@code seed} once on the host and uploaded to each placement; fewer than
     * asked for lack of memory is said through {@code notes}. Everything allocated is closed when
     * the first placement fails.
     */
    public static Placements allocate(Device device, GlueOp op, OpShape shape, Pass pass, List<Variant> variants, int asked, long seed,
                                      Consumer<String> notes) {
        return allocate(device, op, shape, pass, variants, asked, seed, notes, MAX_BYTES);
    }

    /** As above, with the bound on the placements' bytes together given (tests use small ones). */
    static Placements allocate(Device device, GlueOp op, OpShape shape, Pass pass, List<Variant> variants, int asked, long seed,
                               Consumer<String> notes, long maxBytes) {
        if (asked < 1) throw new IllegalArgumentException("placements must be >= 1, got " + asked);
        if (variants.isEmpty()) throw new IllegalArgumentException("no variants to place");
        List<Placement> done = new ArrayList<>();
        Map<String, Tensor> host = OpBuffers.fillInputs(op, shape, pass, seed);
        try {
            done.add(place(device, op, shape, pass, variants, host));
            long each = Math.max(1, done.getFirst().bytes());
            int count = (int) Math.min(asked, Math.max(1, maxBytes / each));
            String what = op.name() + " " + pass.id() + " T=" + shape.tokens();
            if (count > 1) {
                long free = device.availableMemory();
                int fit = (int) Math.min(count, 1 + free / 2 / each);
                if (fit < count) {
                    notes.accept(String.format(Locale.ROOT, "%s: %d of %d buffer placements fit in half of %s's free memory (%.2f GiB, %.1f MiB each); measuring on %d",
                            what, fit, count, device.id(), free / 1073741824.0, each / 1048576.0, fit));
                    count = fit;
                }
            }
            while (done.size() < count) {
                // Each placement zeroes its buffers (seconds at 16k tokens on a CPU): an interrupt must not wait for them all.
                if (Thread.currentThread().isInterrupted()) throw new java.util.concurrent.CancellationException("bench interrupted");
                try {
                    done.add(place(device, op, shape, pass, variants, host));
                } catch (RuntimeException e) {
                    notes.accept(what + ": buffer placement " + (done.size() + 1) + " of " + count + " failed (" + e.getMessage() + "); measuring on "
                            + done.size());
                    break;
                }
            }
            return new Placements(done);
        } catch (RuntimeException | Error e) {
            done.forEach(Placement::close);
            throw e;
        } finally {
            host.values().forEach(Tensor::close);
        }
    }

    /** One placement; whatever it allocated is closed when any part of it fails. */
    private static Placement place(Device device, GlueOp op, OpShape shape, Pass pass, List<Variant> variants, Map<String, Tensor> host) {
        Placement p = new Placement(new LinkedHashMap<>(), new ArrayList<>());
        try {
            OpBuffers.allocate(device, op, shape, pass, host, p.args());
            for (Variant v : variants) p.launches().add(device.prepare(new OpInstance(op, shape, pass, v), p.args()));
            return p;
        } catch (RuntimeException | Error e) {
            p.close();
            throw e;
        }
    }

    /** Placements held. */
    public int count() { return placements.size(); }

    /** Variant {@code i}'s launch on the first placement only (graph replays stay on one placement). */
    public Launch first(int i) { return placements.getFirst().launches().get(i); }

    /** Variant {@code i}'s launch rotating through every placement (the first placement's own launch when there is one). */
    public Launch rotating(int i) {
        if (placements.size() == 1) return first(i);
        return new RotatingLaunch(placements.stream().map(p -> p.launches().get(i)).toList());
    }

    /** Closes every launch and buffer of every placement. */
    @Override public void close() { placements.forEach(Placement::close); }
}
