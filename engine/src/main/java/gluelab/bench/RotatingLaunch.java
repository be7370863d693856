package gluelab.bench;

import gluelab.device.Launch;

import java.util.List;

/**
 * One op's launch over several buffer placements: each run() launches the next placement's, in
 * turn, so a row's samples are spread evenly over every placement. It owns none of them (the
 * {@link Placements} that made them closes them).
 */
public final class RotatingLaunch implements Launch {
    private final List<Launch> placements;
    private int next;

    public RotatingLaunch(List<Launch> placements) {
        if (placements.isEmpty()) throw new IllegalArgumentException("a rotating launch needs at least one placement");
        this.placements = List.copyOf(placements);
    }

    @Override public void run() {
        Launch l = placements.get(next);
        next = (next + 1) % placements.size();
        l.run();
    }

    @Override public int kernels() { return placements.getFirst().kernels(); }

    @Override public int repeats() { return placements.getFirst().repeats(); }

    /** Scratch of every placement: they are all held while the row is measured. */
    @Override public long scratchBytes() { return placements.stream().mapToLong(Launch::scratchBytes).sum(); }

    @Override public int placements() { return placements.size(); }
}
