package gluelab.rank;

import gluelab.floor.OpKind;
import gluelab.table.TableFormat;
import gluelab.units.Numbers;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * A model's profile ranked per source location and op by (measured - ideal) x share of the step,
 * with the plan's stop rule: a glue candidate whose gap is under {@code stopFraction} of the step is
 * not worth a change; a GEMM or attention row is ranked by the same score (against its FLOP floor)
 * and shown, but is never a fix candidate. An op whose bytes are unknown has no floor, so no gap: it is
 * in {@code bytesUnknown}, by its share of the step, neither ranked as if free (an ideal of 0) nor as
 * if at its floor.
 */
public record SourceRanking(List<SourceCandidate> ranked, List<SourceCandidate> bytesUnknown, double stopFraction) {
    /** The widths of the text table's location and op columns: longer names are cut in the middle. */
    public static final int LOCATION_WIDTH = 44, OP_WIDTH = 36;

    public SourceRanking {
        if (!(stopFraction > 0 && stopFraction < 1)) throw new IllegalArgumentException("stop fraction must be in (0, 1), got " + stopFraction);
        if (ranked.stream().anyMatch(c -> !c.floorKnown())) throw new IllegalArgumentException("a candidate without a floor cannot be ranked");
        ranked = ranked.stream().sorted(Comparator.comparingDouble(SourceCandidate::score).reversed()
                .thenComparing(SourceCandidate::location).thenComparing(SourceCandidate::op)).toList();
        bytesUnknown = bytesUnknown.stream().sorted(Comparator.comparingDouble(SourceCandidate::measuredUs).reversed()
                .thenComparing(SourceCandidate::location).thenComparing(SourceCandidate::op)).toList();
    }

    /** {@code candidates} split into those with a floor, ranked, and those whose bytes are unknown. */
    public static SourceRanking of(List<SourceCandidate> candidates, double stopFraction) {
        return new SourceRanking(candidates.stream().filter(SourceCandidate::floorKnown).toList(),
                candidates.stream().filter(c -> !c.floorKnown()).toList(), stopFraction);
    }

    public boolean worthFixing(SourceCandidate c) { return c.kind().glue() && c.floorKnown() && c.gapShare() >= stopFraction; }

    public List<SourceCandidate> worthFixing() { return ranked.stream().filter(this::worthFixing).toList(); }

    /** "fix", "below stop rule", "not glue" for a GEMM or attention row, "no data moved" for overhead, or "bytes unknown" without a floor. */
    public String verdict(SourceCandidate c) {
        if (c.kind() == OpKind.OVERHEAD) return "no data moved";
        if (!c.floorKnown()) return "bytes unknown";
        if (!c.kind().glue()) return "not glue";
        return worthFixing(c) ? "fix" : "below stop rule";
    }

    /** The first {@code n} candidates as a text table, then every op whose bytes are unknown with its share of the step. */
    public String text(int n) {
        String head = "  %-4s %-" + LOCATION_WIDTH + "s %-" + OP_WIDTH + "s %-4s %-9s %5s %11s %11s %7s %10s  %s%n";
        String row = "  %-4s %-" + LOCATION_WIDTH + "s %-" + OP_WIDTH + "s %-4s %-9s %5d %11.1f %11s %7.2f %10s  %s%n";
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, head, "rank", "location", "op", "pass", "kind", "calls", "measured_us", "ideal_us", "share%", "score", "verdict"));
        int i = 0;
        for (SourceCandidate c : ranked) {
            if (i++ >= n) break;
            sb.append(String.format(Locale.ROOT, row, i, location(c), TableFormat.fit(c.op(), OP_WIDTH), c.pass(), c.kind().id(), c.calls(), c.measuredUs(),
                    ideal(c.idealUs()), 100 * c.share(), String.format(Locale.ROOT, "%.1f", c.score()), verdict(c)));
        }
        if (ranked.size() > n) sb.append("  ... ").append(Numbers.count(ranked.size() - n, "more ranked row")).append('\n');
        if (!bytesUnknown.isEmpty()) {
            double share = bytesUnknown.stream().mapToDouble(SourceCandidate::share).sum();
            sb.append(String.format(Locale.ROOT, "  not ranked, no floor: %s whose profile recorded no tensor inputs (%.2f%% of the step)%n",
                    Numbers.count(bytesUnknown.size(), "op"), 100 * share));
            for (SourceCandidate c : bytesUnknown.subList(0, Math.min(n, bytesUnknown.size()))) {
                sb.append(String.format(Locale.ROOT, row, "-", location(c), TableFormat.fit(c.op(), OP_WIDTH), c.pass(), c.kind().id(), c.calls(), c.measuredUs(), "unknown",
                        100 * c.share(), "-", verdict(c)));
            }
            if (bytesUnknown.size() > n) sb.append("  ... ").append(Numbers.count(bytesUnknown.size() - n, "more op")).append(" with bytes unknown\n");
        }
        return sb.toString();
    }

    /**
     * What the ranking says to do next, in one line, as the catalogue's step 04 concludes ("Stop rule reached" or its
     * candidates): the top glue candidate with its gap over its floor and its share of the step, or that none passes.
     */
    public String conclusion() {
        List<SourceCandidate> worth = worthFixing();
        String rule = String.format(Locale.ROOT, "%.2g%% of the step", 100 * stopFraction);
        if (worth.isEmpty()) return "Stop rule reached: no glue row's gap over its floor is " + rule + " or more; nothing here is worth a fix"
                + (bytesUnknown.isEmpty() ? "" : " (" + Numbers.count(bytesUnknown.size(), "op") + " without a floor not ranked)");
        SourceCandidate top = worth.getFirst();
        return String.format(Locale.ROOT, "Top candidate: %s, %.1f us over its floor, %.1f%% of the step (%s above the stop rule of %s); next: step 05 with a fix for it",
                top.label(), top.gapUs(), 100 * top.share(), Numbers.count(worth.size(), "candidate"), rule);
    }

    /** Two decimals, or two significant digits below 0.01 us: a floor of a few bytes (a 0-dim copy) is small, not 0. */
    static String ideal(double us) {
        return us > 0 && us < 0.01 ? String.format(Locale.ROOT, "%.1e", us) : String.format(Locale.ROOT, "%.2f", us);
    }

    private static String location(SourceCandidate c) {
        return TableFormat.fit(c.location().isEmpty() ? "(outside the model file)" : c.location(), LOCATION_WIDTH);
    }
}
